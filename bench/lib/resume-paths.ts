/**
 * Wait → resume beside approval → resume, at the command level (issue 30 §2, decision 0055):
 * each sample parks a running run, then times the write that resumes it until the run is back
 * in line (`queued`, committed). Approval: `ApprovalStore.decide`. Wait: the event-log's
 * `SqlFactStore.append` of the awaited fact, then the matcher's `SqlWaitBook.matchFacts`. The
 * two are interleaved sample by sample on one PostgreSQL, so load hits both alike. Neither
 * includes the Redis hops after the commit (the activation job, the runner's claim).
 */
import { performance } from 'node:perf_hooks';
import type { Pool } from 'pg';
import { newId } from '@switchyard/core';
import { SqlFactStore, SqlPool } from '@switchyard/db';
import { ApprovalStore, SqlApprovalParking, SqlWaitBook, SqlWaitParking, type RunRef } from '@switchyard/runs';

const OWNER = 'bench-runner';

export async function measureResumes(dbUrl: string, pg: Pool | { query: Pool['query'] }, workspaceId: string, samples: number): Promise<{ approval: number[]; wait: number[] }> {
  const sql = new SqlPool({ databaseUrl: dbUrl, poolMax: 4 });
  try {
    const queue = { owner: OWNER, leaseMs: 600_000 };
    const approvals = new SqlApprovalParking(sql, queue);
    const store = new ApprovalStore(sql, sql);
    const waits = new SqlWaitParking(sql, queue);
    const book = new SqlWaitBook(sql);
    const facts = new SqlFactStore(sql);
    const userId = newId();
    const agentId = newId();
    await pg.query(`INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1::uuid, $2, 'resumer', 1, true, $3, now())`, [agentId, workspaceId, userId]);
    await pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, '{}'::jsonb, $2)`, [agentId, userId]);
    const running = async (): Promise<RunRef> => {
      const id = newId();
      await pg.query(
        `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, lane, queued_at, started_at, lease_owner, lease_until)
         VALUES ($1, $2, $3, 1, 'manual', jsonb_build_object('type', 'manual', 'input', 'go', 'userId', $4::uuid), 'running', $1, $5, now(), now(), $6, now() + interval '1 hour')`,
        [id, workspaceId, agentId, userId, `agent:${agentId}`, OWNER],
      );
      return { id, workspaceId, workspaceSlug: 'bench', agentId, agentVersion: 1, status: 'running', eventId: null, depth: 0 };
    };
    const approval: number[] = [];
    const wait: number[] = [];
    for (let i = 0; i < samples; i++) {
      const asked = await running();
      const request = { kind: 'tool' as const, toolCallId: 'c1', tool: { server: 'web', name: 'web.echo', class: 'write' as const, why: 'bench' }, argumentsPreview: '{}', truncated: false, reason: null };
      await approvals.park(asked, [request], 600_000, 0);
      const { rows } = await pg.query<{ id: string }>(`SELECT id::text AS id FROM approvals WHERE run_id = $1`, [asked.id]);
      let t0 = performance.now();
      const decided = await store.decide({ id: workspaceId, slug: 'bench' }, rows[0]!.id, {
        status: 'approved',
        decidedBy: { type: 'member', userId },
        note: null,
        actor: { type: 'member', id: userId },
        correlationId: asked.id,
      });
      if (!decided.ok || !decided.resumed) throw new Error('approval resume did not resume');
      approval.push(performance.now() - t0);

      const waiting = await running();
      const token = newId();
      const afterSeq = await waits.currentSeq(workspaceId);
      const parked = await waits.park(waiting, { toolCallId: 'c1', kind: 'ci.finished', filter: { path: 'payload.token', op: 'eq', value: token }, timeoutMs: 600_000, afterSeq }, 0);
      if (parked.type !== 'parked') throw new Error(`wait not parked: ${parked.type}`);
      t0 = performance.now();
      const [stored] = await facts.append([{ id: newId(), workspaceId, workspace: 'bench', kind: 'ci.finished', subject: { type: 'pipeline', id: token }, payload: { token }, ts: new Date().toISOString() }]);
      if (stored?.status !== 'inserted') throw new Error('fact not stored');
      const resumed = await book.matchFacts([{ workspaceId, fact: stored.fact }]);
      if (!resumed.some((run) => run.runId === waiting.id)) throw new Error('wait resume did not resume');
      wait.push(performance.now() - t0);
    }
    return { approval, wait };
  } finally {
    await sql.$disconnect();
  }
}
