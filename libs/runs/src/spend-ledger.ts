import type { SqlRunner } from '@switchyard/db';
import type { SpendLedger, SpendStanding } from './ports';

/**
 * The run and the runs it was delegated from (origin `delegation`,
 * `parentRunId`), nearest first: `$1` is the run. Bounded well past the
 * causation depth cap.
 */
const CHAIN_SQL = `chain(id, origin, level) AS (
  SELECT id, origin, 0 FROM runs WHERE id = $1::uuid
  UNION ALL
  SELECT p.id, p.origin, c.level + 1 FROM chain c JOIN runs p ON p.id = (c.origin->>'parentRunId')::uuid
   WHERE c.origin->>'type' = 'delegation' AND c.level < 32)`;

/** Each chain run's spend and its version's perRunUsd, nearest first, as JSON; over `spent(id, spent_usd)` joined to `chain`. */
const LINES_SQL = `COALESCE((SELECT json_agg(json_build_object('runId', c.id, 'spentUsd', s.spent_usd::text, 'capUsd', v.spec->'budget'->>'perRunUsd') ORDER BY c.level)
  FROM chain c JOIN spent s ON s.id = c.id JOIN runs r ON r.id = c.id
  LEFT JOIN agent_versions v ON v.agent_id = r.agent_id AND v.version = r.agent_version), '[]')`;

const TODAY = `(now() AT TIME ZONE 'UTC')::date`;

interface StandingRow {
  day_usd: string | null;
  runs: Array<{ runId: string; spentUsd: string; capUsd: string | null }>;
}

function toStanding(row: StandingRow | undefined): SpendStanding {
  return {
    dayUsd: Number(row?.day_usd ?? 0),
    runs: (row?.runs ?? []).map((line) => ({ runId: line.runId, spentUsd: Number(line.spentUsd), capUsd: line.capUsd === null ? null : Number(line.capUsd) })),
  };
}

/**
 * Spend per agent and UTC day in `agent_spend_daily`, and per run in
 * `runs.spent_usd` — a run's own model calls and those of the runs delegated
 * from it (decision 0032). `add` is one statement: the day's upsert and the
 * run's chain, its rows locked in id order (concurrent adds of one family
 * cannot deadlock).
 */
export class SqlSpendLedger implements SpendLedger {
  constructor(private readonly sql: SqlRunner) {}

  async standing(run: { runId: string; agentId: string }): Promise<SpendStanding> {
    const [row] = await this.sql.$queryRawUnsafe<StandingRow[]>(
      `WITH RECURSIVE ${CHAIN_SQL}, spent AS (SELECT r.id, r.spent_usd FROM runs r JOIN chain c ON c.id = r.id)
       SELECT (SELECT cost_usd::text FROM agent_spend_daily WHERE agent_id = $2::uuid AND day = ${TODAY}) AS day_usd, ${LINES_SQL} AS runs`,
      run.runId,
      run.agentId,
    );
    return toStanding(row);
  }

  async add(input: { runId: string; agentId: string; workspaceId: string; usd: number }): Promise<SpendStanding> {
    const [row] = await this.sql.$queryRawUnsafe<StandingRow[]>(
      `WITH RECURSIVE ${CHAIN_SQL},
       locked AS (SELECT r.id FROM runs r JOIN chain c ON c.id = r.id ORDER BY r.id FOR UPDATE OF r),
       spent AS (UPDATE runs r SET spent_usd = r.spent_usd + $4::numeric FROM locked l WHERE r.id = l.id RETURNING r.id, r.spent_usd),
       day AS (
         INSERT INTO agent_spend_daily (agent_id, day, workspace_id, cost_usd) VALUES ($2::uuid, ${TODAY}, $3::uuid, $4::numeric)
         ON CONFLICT (agent_id, day) DO UPDATE SET cost_usd = agent_spend_daily.cost_usd + EXCLUDED.cost_usd
         RETURNING cost_usd)
       SELECT (SELECT cost_usd::text FROM day) AS day_usd, ${LINES_SQL} AS runs`,
      input.runId,
      input.agentId,
      input.workspaceId,
      input.usd.toFixed(6),
    );
    return toStanding(row);
  }
}
