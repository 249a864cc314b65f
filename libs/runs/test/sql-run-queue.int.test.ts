import { SqlPool } from '@switchyard/db';
import { newId } from '@switchyard/core';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { describeRunQueueConformance } from '../src/testing';
import { SqlRunQueue } from '../src';

/**
 * The run queue on a real PostgreSQL passes the conformance suite the fake
 * passes. Each owner's queue has a pool of its own, so concurrent claims
 * really go out side by side and meet at the lane's lock.
 */
describeRunQueueConformance('SqlRunQueue', async () => {
  const t: TestSql = await createTestSql();
  const pools = new Map<string, SqlPool>();
  const workspaceId = newId();
  const userId = newId();
  await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'queue')`, [workspaceId]);
  // Queued in line order, a moment ago: old enough for a sweep of age 0, young for one of a minute.
  const base = Date.now() - 30_000;
  let order = 0;
  /** The workspaces of the labels lanes were asked in (made on first use). */
  const workspaces = new Map<string, string>();
  const workspaceOf = async (label: string | undefined) => {
    if (label === undefined) return workspaceId;
    if (!workspaces.has(label)) {
      const id = newId();
      await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, $2)`, [id, label]);
      workspaces.set(label, id);
    }
    return workspaces.get(label)!;
  };
  /** Per lane, its workspace. */
  const laneWorkspaces = new Map<string, string>();
  return {
    queue: (owner, leaseMs) => {
      if (!pools.has(owner)) pools.set(owner, new SqlPool({ databaseUrl: t.db.url, poolMax: 5 }));
      return new SqlRunQueue(pools.get(owner)!, { owner, leaseMs });
    },
    lane: async (concurrency, workspace) => {
      const agentId = newId();
      const space = await workspaceOf(workspace);
      await t.pg.query(
        `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1::uuid, $2, $1::text, 2, true, $3, now())`,
        [agentId, space, userId],
      );
      laneWorkspaces.set(`agent:${agentId}`, space);
      // Version 1 says otherwise: the latest version's concurrency counts.
      for (const [version, value] of [[1, 9], [2, concurrency]]) {
        await t.pg.query(
          `INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, $2, 1, jsonb_build_object('flow', jsonb_build_object('concurrency', $3::int)), $4)`,
          [agentId, version, value, userId],
        );
      }
      return `agent:${agentId}`;
    },
    enqueue: async (lane) => {
      const id = newId();
      await t.pg.query(
        `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, lane, queued_at)
         VALUES ($1, $2, $3, 2, 'manual', jsonb_build_object('type', 'manual', 'input', 'go', 'userId', $4::uuid), 'queued', $1, $5, $6)`,
        [id, laneWorkspaces.get(lane) ?? workspaceId, lane.slice('agent:'.length), userId, lane, new Date(base + order++)],
      );
      return id;
    },
    // The loop's mark (tool-calls.ts): the answer, then the notice stored before the call, no result.
    startWriteCall: async (runId) => {
      await t.pg.query(
        `INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content) VALUES
           ($1, 1, $2, $1, 'assistant', '{"text": "", "toolCalls": [{"id": "call_1", "name": "web.write", "arguments": "{}"}]}'),
           ($1, 2, $2, $1, 'notice', '{"code": "write_call_started", "message": "web.write started", "toolCallId": "call_1"}')`,
        [runId, workspaceId],
      );
    },
    statusOf: async (runId) => (await t.pg.query<{ status: string; reason: string | null }>('SELECT status::text AS status, reason FROM runs WHERE id = $1', [runId])).rows[0]!,
    close: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.$disconnect()));
      await t.close();
    },
  };
});
