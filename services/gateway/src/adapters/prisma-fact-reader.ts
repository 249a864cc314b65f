import type { Fact } from '@switchyard/contracts';
import { kindGlobToSqlRegex } from '@switchyard/core';
import { FACT_COLUMNS, factFromRow, type FactRow, type PrismaClient } from '@switchyard/db';
import type { FactReader } from '../ports';

/**
 * Reads platform_events. Every query is scoped by workspace id. Paging by
 * `seq > after` is safe because a workspace's facts commit in seq order
 * (see the event-log's SqlFactStore).
 */
export class PrismaFactReader implements FactReader {
  constructor(private readonly prisma: PrismaClient) {}

  async listAfter(
    workspace: { id: string; slug: string },
    afterSeq: number,
    options: { kindGlob?: string; limit: number; uptoSeq?: number },
  ): Promise<Fact[]> {
    const params: unknown[] = [workspace.id, afterSeq, options.uptoSeq ?? Number.MAX_SAFE_INTEGER, options.limit];
    let kindClause = '';
    if (options.kindGlob && options.kindGlob.includes('*')) {
      params.push(kindGlobToSqlRegex(options.kindGlob));
      kindClause = `AND ('.' || kind) ~ $5`;
    } else if (options.kindGlob) {
      params.push(options.kindGlob);
      kindClause = 'AND kind = $5';
    }
    const rows = await this.prisma.$queryRawUnsafe<FactRow[]>(
      `SELECT ${FACT_COLUMNS} FROM platform_events
        WHERE workspace_id = $1::uuid AND seq > $2 AND seq <= $3 ${kindClause}
        ORDER BY seq LIMIT $4`,
      ...params,
    );
    return rows.map((row) => factFromRow(row, workspace.slug));
  }

  async get(workspace: { id: string; slug: string }, id: string): Promise<Fact | null> {
    const rows = await this.prisma.$queryRawUnsafe<FactRow[]>(
      `SELECT ${FACT_COLUMNS} FROM platform_events WHERE workspace_id = $1::uuid AND id = $2::uuid`,
      workspace.id,
      id,
    );
    return rows[0] ? factFromRow(rows[0], workspace.slug) : null;
  }

  async lastSeq(workspaceId: string): Promise<number> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ last_seq: bigint }>>(
      'SELECT last_seq FROM workspace_event_seq WHERE workspace_id = $1::uuid',
      workspaceId,
    );
    return Number(rows[0]?.last_seq ?? 0);
  }

  async purgedThrough(workspaceId: string): Promise<number> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ purged_through_seq: bigint }>>(
      'SELECT purged_through_seq FROM fact_horizons WHERE workspace_id = $1::uuid',
      workspaceId,
    );
    return Number(rows[0]?.purged_through_seq ?? 0);
  }

  async findByIdempotencyKeys(workspace: { id: string; slug: string }, keys: readonly string[]): Promise<Map<string, Fact>> {
    if (keys.length === 0) return new Map();
    const rows = await this.prisma.$queryRawUnsafe<FactRow[]>(
      // Through platform_event_keys, the one index of stored keys (decision 0041).
      `SELECT ${FACT_COLUMNS} FROM platform_events
        WHERE workspace_id = $1::uuid
          AND id IN (SELECT event_id FROM platform_event_keys WHERE workspace_id = $1::uuid AND idempotency_key = ANY($2::text[]))`,
      workspace.id,
      [...keys],
    );
    return new Map(rows.map((row) => [row.idempotency_key!, factFromRow(row, workspace.slug)]));
  }
}
