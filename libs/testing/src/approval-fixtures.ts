import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { newId } from '@switchyard/core';

/** What insertParkedRun writes: a run of the agent, and optionally what caused it. */
export interface ParkedRunFixture {
  workspaceId: string;
  agentId: string;
  /** @defaultValue 'awaiting_approval' */
  status?: string;
  /** The run that caused this one (runs.caused_by.runId). */
  causedByRunId?: string;
  /** @defaultValue 0 */
  depth?: number;
  /** Manual origin instead of a trigger. @defaultValue false */
  manual?: boolean;
  /** When it was queued. @defaultValue now */
  queuedAt?: Date;
}

/**
 * Why this exists: the approvals API, the causal stop and the approvals
 * service are tested without the runner that parks runs (its side is tested
 * on its own), so their tests write what a park leaves — a run
 * `awaiting_approval` with no lease, and its pending approval rows — straight
 * into the test database. Returns the run id.
 */
export async function insertParkedRun(pg: Client, run: ParkedRunFixture): Promise<string> {
  const id = newId();
  const eventId = run.manual ? null : randomUUID();
  const origin = run.manual ? { type: 'manual', input: 'go', userId: randomUUID() } : { type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 };
  const status = run.status ?? 'awaiting_approval';
  const ended = ['completed', 'failed', 'cancelled', 'dropped'].includes(status);
  await pg.query(
    `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, caused_by, depth, session_id, queued_at, started_at, ended_at,
                       lease_owner, lease_until)
     VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8::"RunStatus", $9, $10, $11, $12, $13, $14, $15, $16)`,
    [
      id,
      run.workspaceId,
      run.agentId,
      origin.type,
      JSON.stringify(origin),
      eventId,
      run.manual ? null : 'build.failed',
      status,
      run.causedByRunId ? JSON.stringify({ runId: run.causedByRunId, agentId: run.agentId, depth: run.depth ?? 1 }) : null,
      run.depth ?? 0,
      randomUUID(),
      run.queuedAt ?? new Date(),
      status === 'queued' ? null : new Date(),
      ended ? new Date() : null,
      status === 'running' ? 'fixture-runner' : null,
      status === 'running' ? new Date(Date.now() + 3_600_000) : null,
    ],
  );
  return id;
}

/** What insertApproval writes. */
export interface ApprovalFixture {
  workspaceId: string;
  runId: string;
  agentId: string;
  /** @defaultValue 'pending' */
  status?: string;
  /** @defaultValue 7 days from now */
  expiresAt?: Date;
  /** @defaultValue a fresh id */
  toolCallId?: string;
  /** @defaultValue now */
  requestedAt?: Date;
  /** The approval's `tool`. @defaultValue `tickets.close`, a write */
  tool?: { server: string; name: string; class: string; why: string };
  /** @defaultValue `{"id":42}` */
  argumentsPreview?: string;
  /** Who decided (`decided_by`). @defaultValue null */
  decidedBy?: Record<string, unknown> | null;
}

/** Inserts an approval of a tool call as the runner's park writes it; returns its id. */
export async function insertApproval(pg: Client, approval: ApprovalFixture): Promise<string> {
  const id = newId();
  await pg.query(
    `INSERT INTO approvals (id, workspace_id, run_id, agent_id, agent_version, kind, tool_call_id, tool, arguments_preview, truncated, reason, status, requested_at, expires_at, decided_by)
     VALUES ($1, $2, $3, $4, 1, 'tool', $5, $6, $7, false, 'to fix the build', $8, $9, $10, $11)`,
    [
      id,
      approval.workspaceId,
      approval.runId,
      approval.agentId,
      approval.toolCallId ?? `call_${randomUUID()}`,
      JSON.stringify(approval.tool ?? { server: 'tickets', name: 'tickets.close', class: 'write', why: 'it may change something outside the run; mode default asks before every write' }),
      approval.argumentsPreview ?? JSON.stringify({ id: 42 }),
      approval.status ?? 'pending',
      approval.requestedAt ?? new Date(),
      approval.expiresAt ?? new Date(Date.now() + 7 * 86_400_000),
      approval.decidedBy ? JSON.stringify(approval.decidedBy) : null,
    ],
  );
  return id;
}
