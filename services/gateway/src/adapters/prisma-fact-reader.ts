import type { Fact } from '@switchyard/contracts';
import { kindGlobToSqlRegex } from '@switchyard/core';
import { FACT_COLUMNS, factFromRow, type FactRow, type PrismaClient } from '@switchyard/db';
import type { FactReader } from '../fact-ports';

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
    return this.page(workspace, { above: afterSeq, upto: options.uptoSeq ?? Number.MAX_SAFE_INTEGER, kindGlob: options.kindGlob, limit: options.limit, order: 'ASC' });
  }

  async listBefore(workspace: { id: string; slug: string }, beforeSeq: number | undefined, options: { kindGlob?: string; limit: number; afterSeq?: number }): Promise<Fact[]> {
    // seq < before is seq <= before - 1 (seqs are integers).
    const upto = beforeSeq === undefined ? Number.MAX_SAFE_INTEGER : beforeSeq - 1;
    return this.page(workspace, { above: options.afterSeq ?? 0, upto, kindGlob: options.kindGlob, limit: options.limit, order: 'DESC' });
  }

  /** Facts with above < seq <= upto (and the kind glob), in seq order either way, at most `limit`. */
  private async page(
    workspace: { id: string; slug: string },
    range: { above: number; upto: number; kindGlob?: string; limit: number; order: 'ASC' | 'DESC' },
  ): Promise<Fact[]> {
    const params: unknown[] = [workspace.id, range.above, range.upto, range.limit];
    let kindClause = '';
    if (range.kindGlob && range.kindGlob.includes('*')) {
      params.push(kindGlobToSqlRegex(range.kindGlob));
      kindClause = `AND ('.' || kind) ~ $5`;
    } else if (range.kindGlob) {
      params.push(range.kindGlob);
      kindClause = 'AND kind = $5';
    }
    const rows = await this.prisma.$queryRawUnsafe<FactRow[]>(
      `SELECT ${FACT_COLUMNS} FROM platform_events
        WHERE workspace_id = $1::uuid AND seq > $2 AND seq <= $3 ${kindClause}
        ORDER BY seq ${range.order} LIMIT $4`,
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
