import { AppError, BACKFILL_MAX_RUNS, ErrorCode, type BackfillRequest } from '@switchyard/contracts';
import { compileFilter, compileKindGlob, kindGlobToSqlRegex } from '@switchyard/core';
import { factFromRow, type FactRow, type SqlRunner } from '@switchyard/db';

/** Whom a backfill is for, as its plan reads the facts. */
export interface BackfillTarget {
  workspaceId: string;
  workspaceSlug: string;
  agentId: string;
  /** The causation depth from which a fact activates nothing (MAX_CAUSATION_DEPTH, as the matcher's guard). */
  maxDepth: number;
}

/** The facts a backfill activates its agent on, and what it would cost. */
export interface BackfillPlan {
  seqs: number[];
  skipped: number;
  estimatedCostUsd: number | null;
}

const PAGE = 2_000;

/**
 * The facts of the workspace recorded in `[from, to]` whose kind matches
 * and that pass the filter (the trigger language, as the matcher applies
 * it), in seq order, less those the matcher's loop guards would refuse: a
 * fact caused by this agent's own runs, or one at the causation depth. A dry
 * run answers this plan; the real one stores its seqs, so the two agree.
 *
 * @throws AppError BACKFILL_TOO_LARGE past BACKFILL_MAX_RUNS facts.
 */
export async function planBackfill(sql: SqlRunner, target: BackfillTarget, request: BackfillRequest): Promise<BackfillPlan> {
  const kind = compileKindGlob(request.kind);
  const filter = request.filter ? compileFilter(request.filter) : null;
  const seqs: number[] = [];
  let skipped = 0;
  let after = 0;
  for (;;) {
    const rows = await sql.$queryRawUnsafe<FactRow[]>(
      `SELECT id::text AS id, workspace_id::text AS workspace_id, seq, kind, subject_type, subject_id, actor, stated_actor, payload, caused_by, idempotency_key, ts
         FROM platform_events
        WHERE workspace_id = $1::uuid AND ts >= $2::timestamptz AND ts <= $3::timestamptz AND seq > $4::bigint AND ('.' || kind) ~ $5
        ORDER BY seq LIMIT $6::int`,
      target.workspaceId,
      request.from,
      request.to,
      after,
      kindGlobToSqlRegex(request.kind),
      PAGE,
    );
    for (const fact of rows.map((row) => factFromRow(row, target.workspaceSlug))) {
      if (!kind.test(fact.kind) || (filter && !filter(fact))) continue;
      if (fact.causedBy?.agentId === target.agentId || (fact.causedBy?.depth ?? 0) >= target.maxDepth) skipped++;
      else seqs.push(fact.seq);
    }
    if (seqs.length > BACKFILL_MAX_RUNS) {
      throw new AppError(ErrorCode.BACKFILL_TOO_LARGE, `a backfill starts at most ${BACKFILL_MAX_RUNS} runs: narrow the range or the filter`, { max: BACKFILL_MAX_RUNS });
    }
    if (rows.length < PAGE) break;
    after = Number(rows.at(-1)!.seq);
  }
  return { seqs, skipped, estimatedCostUsd: await estimate(sql, target.agentId, seqs.length) };
}

/** The runs' count times the agent's mean cost over its last 100 ended runs; null without any. */
async function estimate(sql: SqlRunner, agentId: string, runs: number): Promise<number | null> {
  const [row] = await sql.$queryRawUnsafe<Array<{ mean: string | number | null }>>(
    `SELECT avg(spent_usd) AS mean FROM (
       SELECT spent_usd FROM runs WHERE agent_id = $1::uuid AND status IN ('completed', 'failed') ORDER BY queued_at DESC LIMIT 100) recent`,
    agentId,
  );
  return row?.mean === null || row?.mean === undefined ? null : Number(row.mean) * runs;
}
