import { recordFacts, type SqlRunner, type SqlTransactions } from '@switchyard/db';
import { wakeTeammate } from '@switchyard/runs';
import type { DeliveryCommit } from '@switchyard/core';
import type { BridgeHistory, BridgeStore } from '../event-bridge';
import { pairKey } from '../ports';

interface HistoryRow {
  delivered: Array<{ teammate_id: string; event_id: string; run_id: string | null; run_queued: boolean }>;
  last_of_kind: Array<{ teammate_id: string; kind: string; last: string | null }>;
  stopped: string[] | null;
  turns: Array<{ run_id: string; teammate_id: string }>;
}

/** The event bridge's queries (raw SQL on the matcher's `pg` pool, decision 0015). */
export class SqlBridgeStore implements BridgeStore {
  constructor(private readonly sql: SqlRunner & SqlTransactions) {}

  async history(query: Parameters<BridgeStore['history']>[0]): Promise<BridgeHistory> {
    const teammates = [...new Set(query.pairs.map((pair) => pair.teammateId))];
    // One round trip for the batch, each part over unnested arrays, as JSON.
    const [row] = await this.sql.$queryRawUnsafe<HistoryRow[]>(
      `SELECT
         (SELECT coalesce(json_agg(d), '[]') FROM (
            SELECT d.teammate_id::text AS teammate_id, d.event_id::text AS event_id, d.run_id::text AS run_id,
                   EXISTS (SELECT 1 FROM runs r WHERE r.id = d.run_id AND r.status = 'queued') AS run_queued
              FROM unnest($1::uuid[], $2::uuid[]) AS p(t, e)
              JOIN teammate_deliveries d ON d.teammate_id = p.t AND d.event_id = p.e) d) AS delivered,
         (SELECT coalesce(json_agg(k), '[]') FROM (
            SELECT k.t::text AS teammate_id, k.kind,
                   (SELECT max(delivered_at) FROM teammate_deliveries WHERE teammate_id = k.t AND event_kind = k.kind) AS last
              FROM unnest($3::uuid[], $4::text[]) AS k(t, kind)) k) AS last_of_kind,
         (SELECT array_agg(id::text) FROM teammates WHERE id = ANY($5::uuid[]) AND stopped_at IS NOT NULL) AS stopped,
         (SELECT coalesce(json_agg(c), '[]') FROM (
            SELECT r.id::text AS run_id, t.id::text AS teammate_id
              FROM runs r JOIN teammates t ON t.workspace_id = r.workspace_id AND t.session_id = r.session_id
             WHERE r.id = ANY($6::uuid[])) c) AS turns`,
      query.pairs.map((pair) => pair.teammateId),
      query.pairs.map((pair) => pair.eventId),
      query.cooldownKinds.map((entry) => entry.teammateId),
      query.cooldownKinds.map((entry) => entry.kind),
      teammates,
      query.causeRuns.filter(isUuid),
    );
    return {
      delivered: new Map((row?.delivered ?? []).map((d) => [pairKey(d.teammate_id, d.event_id), { runId: d.run_id, runQueued: d.run_queued }])),
      lastOfKind: new Map((row?.last_of_kind ?? []).filter((k) => k.last).map((k) => [pairKey(k.teammate_id, k.kind), new Date(k.last!).getTime()])),
      stopped: new Set(row?.stopped ?? []),
      turnOf: new Map((row?.turns ?? []).map((turn) => [turn.run_id, turn.teammate_id])),
    };
  }

  /**
   * The delivery's row, its wake and its `message.sent` fact, in one transaction.
   * A row there already (another replica delivered the same fact) commits nothing else.
   */
  async commitDelivery(commit: DeliveryCommit): Promise<string | null> {
    const { from } = commit.envelope;
    if (from.type !== 'event') throw new Error('the event bridge delivers event envelopes only');
    return this.sql.transaction(async (tx) => {
      const inserted = await tx.$executeRawUnsafe(
        `INSERT INTO teammate_deliveries (teammate_id, event_id, workspace_id, event_kind, message_id)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::uuid) ON CONFLICT DO NOTHING`,
        commit.mate.id,
        from.eventId,
        commit.workspaceId,
        from.kind,
        commit.envelope.id,
      );
      if (inserted === 0) return null;
      const runId = commit.wake ? await wakeTeammate(tx, commit.workspaceId, commit.mate.sessionId, commit.wake.runId, commit.wake.causedBy) : null;
      if (runId) await tx.$executeRawUnsafe(`UPDATE teammate_deliveries SET run_id = $3::uuid WHERE teammate_id = $1::uuid AND event_id = $2::uuid`, commit.mate.id, from.eventId, runId);
      await recordFacts(tx, commit.facts);
      return runId;
    });
  }
}

/** Cause run ids are strings in facts; only a UUID can name a run. */
function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
