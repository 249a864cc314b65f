import { MAX_TRACE_SPANS } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { TraceInput } from './run-trace';

interface RunRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  agent_version: number;
  status: string;
  reason: string | null;
  origin_type: string;
  queued_at: Date;
  ended_at: Date | null;
  provider: string | null;
  model: string | null;
}
interface EntryRow {
  seq: number;
  type: string;
  content: Record<string, unknown>;
  at: Date;
}
interface ApprovalRow {
  id: string;
  kind: string;
  tool_call_id: string;
  tool_name: string | null;
  status: string;
  requested_at: Date;
  decided_at: Date | null;
}

/**
 * Reads what a run's trace is built from, scoped to the workspace: an unknown
 * run and another workspace's run both read as null. Entries and approvals are
 * bounded (a trace keeps MAX_TRACE_SPANS spans).
 */
export class SqlTraceReader {
  constructor(private readonly sql: SqlRunner) {}

  async read(workspaceId: string, runId: string): Promise<TraceInput | null> {
    const [run] = await this.sql.$queryRawUnsafe<RunRow[]>(
      `SELECT r.id::text, r.workspace_id::text, r.agent_id::text, r.agent_version, r.status::text, r.reason, r.origin_type,
              r.queued_at, r.ended_at, v.spec->'model'->>'provider' AS provider, v.spec->'model'->>'name' AS model
         FROM runs r LEFT JOIN agent_versions v ON v.agent_id = r.agent_id AND v.version = r.agent_version
        WHERE r.workspace_id = $1::uuid AND r.id = $2::uuid`,
      workspaceId,
      runId,
    );
    if (!run) return null;
    const [entries, approvals] = await Promise.all([
      this.sql.$queryRawUnsafe<EntryRow[]>(
        `SELECT seq, type, content, at FROM transcript_entries WHERE workspace_id = $1::uuid AND run_id = $2::uuid ORDER BY seq LIMIT $3`,
        workspaceId,
        runId,
        MAX_TRACE_SPANS * 2,
      ),
      this.sql.$queryRawUnsafe<ApprovalRow[]>(
        `SELECT id::text, kind, tool_call_id, tool->>'name' AS tool_name, status, requested_at, decided_at
           FROM approvals WHERE workspace_id = $1::uuid AND run_id = $2::uuid ORDER BY requested_at LIMIT $3`,
        workspaceId,
        runId,
        MAX_TRACE_SPANS,
      ),
    ]);
    return {
      run: {
        id: run.id,
        workspaceId: run.workspace_id,
        agentId: run.agent_id,
        agentVersion: run.agent_version,
        status: run.status,
        reason: run.reason,
        originType: run.origin_type,
        queuedAt: run.queued_at,
        endedAt: run.ended_at,
        model: run.provider && run.model ? { provider: run.provider, name: run.model } : null,
      },
      entries: entries.map((row) => ({ seq: row.seq, type: row.type, content: row.content, at: row.at })),
      approvals: approvals.map((row) => ({ id: row.id, kind: row.kind, toolCallId: row.tool_call_id, toolName: row.tool_name, status: row.status, requestedAt: row.requested_at, decidedAt: row.decided_at })),
    };
  }
}
