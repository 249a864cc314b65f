import {
  OVERVIEW_MAX_LANES,
  OVERVIEW_MAX_LISTED_APPROVALS,
  OVERVIEW_MAX_SPEND_AGENTS,
  OVERVIEW_SPEND_DAYS,
  type OverviewQuery,
  type OverviewResponse,
  type RunEndCounts,
} from '@switchyard/contracts';
import type { OpsOverviewReader } from '../ops-overview-ports';
import type { Principal } from '../auth-ports';

const DAY_MS = 86_400_000;

/** failed / (completed + failed): cancelled and dropped runs neither failed nor succeeded at their work. */
export function failureRate(counts: Pick<RunEndCounts, 'completed' | 'failed'>): number | null {
  const ran = counts.completed + counts.failed;
  return ran === 0 ? null : counts.failed / ran;
}

/** The `count` UTC days (`YYYY-MM-DD`) up to the one holding `asOf`, oldest first. */
export function utcDaysUpTo(asOf: Date, count: number): string[] {
  const today = Date.UTC(asOf.getUTCFullYear(), asOf.getUTCMonth(), asOf.getUTCDate());
  return Array.from({ length: count }, (_, i) => new Date(today - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * The operations overview of the caller's workspace (`GET /overview`,
 * decision 0036). The runs' counts are read first: the seq they hold facts
 * up to is then older than what the other reads see, so a client adding the
 * later facts to those reads never skips a change (the approvals' facts
 * merge by id and converge). The other reads go side by side.
 */
export async function readOverview(reader: OpsOverviewReader, principal: Principal, query: OverviewQuery): Promise<OverviewResponse> {
  const workspaceId = principal.workspaceId;
  const ends = await reader.runEnds(workspaceId, query.window);
  const days = utcDaysUpTo(ends.asOf, OVERVIEW_SPEND_DAYS);
  const [queues, awaitingEvent, spend, approvals] = await Promise.all([
    reader.queues(workspaceId, OVERVIEW_MAX_LANES),
    reader.awaitingEvent(workspaceId),
    reader.spend(workspaceId, days.at(-1)!, OVERVIEW_SPEND_DAYS, OVERVIEW_MAX_SPEND_AGENTS),
    reader.pendingApprovals(workspaceId, OVERVIEW_MAX_LISTED_APPROVALS),
  ]);
  const { p95Ms, ...totals } = ends.totals;
  return {
    windowMinutes: query.window,
    from: ends.from.toISOString(),
    asOf: ends.asOf.toISOString(),
    throughSeq: ends.throughSeq,
    runs: {
      minutes: ends.minutes.map(({ minute, ...counts }) => ({ minute: minute.toISOString(), ...counts })),
      totals,
      failureRate: failureRate(totals),
      p95Ms,
    },
    queues,
    awaitingEvent,
    spend: {
      days,
      agents: spend.map(({ usdByDay, ...agent }) => ({ ...agent, usd: days.map((day) => usdByDay.get(day) ?? 0) })),
    },
    approvals,
  };
}
