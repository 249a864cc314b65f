import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { newId } from '@switchyard/core';

/** Statuses a run never leaves. */
const ENDED = ['completed', 'failed', 'cancelled', 'dropped'];

/**
 * Why this exists: the transcript and steering tests need runs in any status
 * and with a chosen session, but no matcher or runner runs in them. This
 * inserts a trigger run as the matcher and runner would have left it, straight
 * into the test database. Returns the run id.
 */
export async function insertRun(
  pg: Client,
  run: {
    workspaceId: string;
    agentId: string;
    status: string;
    sessionId?: string;
    /** How long it ran, ms, ending now (ended runs). @defaultValue 0 */
    durationMs?: number;
    /** `try`: a shadow run, which records no facts. @defaultValue 'trigger' */
    originType?: 'trigger' | 'try';
  },
): Promise<string> {
  const id = newId();
  const eventId = randomUUID();
  const ended = ENDED.includes(run.status);
  const now = Date.now();
  await pg.query(
    `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, session_id, started_at, ended_at)
     VALUES ($1, $2, $3, 1, $10, $4, $5, 'build.failed', $6::"RunStatus", $7, $8, $9)`,
    [
      id,
      run.workspaceId,
      run.agentId,
      JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }),
      eventId,
      run.status,
      run.sessionId ?? randomUUID(),
      run.status === 'queued' ? null : new Date(ended ? now - (run.durationMs ?? 0) : now),
      ended ? new Date(now) : null,
      run.originType ?? 'trigger',
    ],
  );
  return id;
}

/** A minimal valid agent spec (scripted model), for creating agents over the API. */
export function scriptedAgent(name: string) {
  return { name, instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }] };
}
