import type { Fact, OverviewMinute, OverviewResponse, RunEndCounts, TerminalRunStatus } from '@switchyard/contracts';

/*
 * The operations overview as the page keeps it (decision 0036): the last read
 * of `GET /overview`, with the facts that came after it folded in. Pure, so
 * that it is tested without a browser.
 */

/** The statuses a run ends in, in the order the page stacks them (bottom first). */
export const END_STATUSES = ['completed', 'failed', 'cancelled', 'dropped'] as const satisfies readonly TerminalRunStatus[];
// Every terminal status is drawn: a new one fails to compile here until it is.
const _everyStatus: [TerminalRunStatus] extends [(typeof END_STATUSES)[number]] ? true : never = true;

const MINUTE_MS = 60_000;
const RUN_END_KINDS = new Map(END_STATUSES.map((status) => [`agent.run.${status}`, status]));

/** A pending approval as the age chart needs it. */
export interface PendingApproval {
  agentId: string;
  requestedAt: number;
}

/** One minute's run ends, and their p95 duration as last read (facts do not carry durations). */
export type MinuteCounts = RunEndCounts & { p95Ms: number | null };

/** What the overview page shows. */
export interface OverviewState {
  /** The last read: queues, spend, p95s and the window's bounds come from it alone. */
  read: OverviewResponse;
  /** Run ends by minute start (ms since the epoch, UTC), the read's and the later facts'. */
  minutes: Map<number, MinuteCounts>;
  /** The last fact folded in (the read's `throughSeq` at first): a fact at or below it is already counted. */
  throughSeq: number;
  /** Pending approvals by id: the read's, then as their facts say. */
  pending: Map<string, PendingApproval>;
  /** Pending approvals the read counted but did not list (beyond its first 500): newer than the listed ones. */
  unlisted: number;
  /** The server's clock minus the browser's at the read, so ages and the window follow the server. */
  skewMs: number;
}

const emptyCounts = (): MinuteCounts => ({ completed: 0, failed: 0, cancelled: 0, dropped: 0, p95Ms: null });

/** The state a read gives, before any later fact. */
export function fromRead(read: OverviewResponse, receivedAt: number): OverviewState {
  const minutes = new Map<number, MinuteCounts>(read.runs.minutes.map(({ minute, ...counts }: OverviewMinute) => [Date.parse(minute), counts]));
  const pending = new Map(read.approvals.oldest.map((a) => [a.id, { agentId: a.agentId, requestedAt: Date.parse(a.requestedAt) }]));
  return { read, minutes, throughSeq: read.throughSeq, pending, unlisted: read.approvals.pending - read.approvals.oldest.length, skewMs: Date.parse(read.asOf) - receivedAt };
}

/** Whether a fact changes what the overview counts: a run's end as the platform records it, or an approval's change. */
export function isCountedFact(fact: Fact): boolean {
  return runEndStatus(fact) !== undefined || approvalChange(fact) !== undefined;
}

/** The status a run ended in, when the fact is the platform's own `agent.run.<end>` (a producer may post the kind, never as `system`). */
function runEndStatus(fact: Fact): (typeof END_STATUSES)[number] | undefined {
  if (fact.subject.type !== 'run' || fact.actor?.type !== 'system') return undefined;
  return RUN_END_KINDS.get(fact.kind);
}

/** An `approval.*` fact's approval after the change (its payload), when it reads as one. */
function approvalChange(fact: Fact): { id: string; status: string; agentId: string; requestedAt: number } | undefined {
  if (!fact.kind.startsWith('approval.') || fact.subject.type !== 'approval') return undefined;
  const { status, agentId, requestedAt } = fact.payload as Record<string, unknown>;
  const at = typeof requestedAt === 'string' ? Date.parse(requestedAt) : NaN;
  if (typeof status !== 'string' || typeof agentId !== 'string' || Number.isNaN(at)) return undefined;
  return { id: fact.subject.id, status, agentId, requestedAt: at };
}

/**
 * The state with one more fact: a run's end counts in the minute of the fact's
 * time; an approval is pending or not as its payload says. Facts come in seq
 * order, and one at or below `throughSeq` was already counted (by the read, or
 * folded in before), so folding is idempotent.
 */
export function applyFact(state: OverviewState, fact: Fact): OverviewState {
  if (fact.seq <= state.throughSeq) return state;
  const next = { ...state, throughSeq: fact.seq };
  const status = runEndStatus(fact);
  if (status) {
    const minute = Math.floor(Date.parse(fact.ts) / MINUTE_MS) * MINUTE_MS;
    const counts = { ...(state.minutes.get(minute) ?? emptyCounts()) };
    counts[status] += 1;
    next.minutes = new Map(state.minutes).set(minute, counts);
  }
  const approval = approvalChange(fact);
  if (approval) {
    next.pending = new Map(state.pending);
    if (approval.status === 'pending') next.pending.set(approval.id, { agentId: approval.agentId, requestedAt: approval.requestedAt });
    else next.pending.delete(approval.id);
  }
  return next;
}

/** The window's minutes as the page draws them: every minute from the first to the current one, oldest first. */
export interface MinuteSeries {
  /** Minute starts, seconds since the epoch (uPlot's time axis). */
  x: number[];
  counts: MinuteCounts[];
  totals: RunEndCounts;
}

/** The minutes of the window ending with the one holding `now` (the browser's clock, set to the server's). */
export function minuteSeries(state: OverviewState, now: number): MinuteSeries {
  const last = Math.floor((now + state.skewMs) / MINUTE_MS) * MINUTE_MS;
  const first = last - (state.read.windowMinutes - 1) * MINUTE_MS;
  const x: number[] = [];
  const counts: MinuteCounts[] = [];
  const totals: RunEndCounts = { completed: 0, failed: 0, cancelled: 0, dropped: 0 };
  for (let minute = first; minute <= last; minute += MINUTE_MS) {
    const at = state.minutes.get(minute) ?? emptyCounts();
    x.push(minute / 1000);
    counts.push(at);
    for (const status of END_STATUSES) totals[status] += at[status];
  }
  return { x, counts, totals };
}

/** failed / (completed + failed); null when neither. */
export function failureRateOf(counts: Pick<RunEndCounts, 'completed' | 'failed'>): number | null {
  const ran = counts.completed + counts.failed;
  return ran === 0 ? null : counts.failed / ran;
}

/** The age classes of the parked approvals chart: each holds ages below its bound. */
export const AGE_BUCKETS = [
  { label: '< 1 min', belowMs: MINUTE_MS },
  { label: '1–5 min', belowMs: 5 * MINUTE_MS },
  { label: '5–15 min', belowMs: 15 * MINUTE_MS },
  { label: '15–60 min', belowMs: 60 * MINUTE_MS },
  { label: '1–4 h', belowMs: 240 * MINUTE_MS },
  { label: '4–24 h', belowMs: 1_440 * MINUTE_MS },
  { label: '≥ 1 day', belowMs: Infinity },
] as const;

/** How many pending approvals are in each age class now. */
export function approvalAges(state: OverviewState, now: number): number[] {
  const counts = AGE_BUCKETS.map(() => 0);
  const serverNow = now + state.skewMs;
  for (const { requestedAt } of state.pending.values()) {
    const age = Math.max(0, serverNow - requestedAt);
    counts[AGE_BUCKETS.findIndex((bucket) => age < bucket.belowMs)]! += 1;
  }
  return counts;
}
