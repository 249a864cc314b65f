import type { SqlRunner } from '@switchyard/db';
import type { SpendLedger } from '../loop/loop-ports';

/** Spend per agent and UTC day in `agent_spend_daily`; `add` is one atomic upsert. */
export class SqlSpendLedger implements SpendLedger {
  constructor(private readonly sql: SqlRunner) {}

  async spentToday(agentId: string): Promise<number> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ cost_usd: string }>>(
      `SELECT cost_usd::text FROM agent_spend_daily WHERE agent_id = $1::uuid AND day = (now() AT TIME ZONE 'UTC')::date`,
      agentId,
    );
    return Number(row?.cost_usd ?? 0);
  }

  async add(input: { agentId: string; workspaceId: string; usd: number }): Promise<number> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ cost_usd: string }>>(
      `INSERT INTO agent_spend_daily (agent_id, day, workspace_id, cost_usd)
       VALUES ($1::uuid, (now() AT TIME ZONE 'UTC')::date, $2::uuid, $3::numeric)
       ON CONFLICT (agent_id, day) DO UPDATE SET cost_usd = agent_spend_daily.cost_usd + EXCLUDED.cost_usd
       RETURNING cost_usd::text`,
      input.agentId,
      input.workspaceId,
      input.usd.toFixed(6),
    );
    return Number(row!.cost_usd);
  }
}
