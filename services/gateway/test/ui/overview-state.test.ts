import type { Fact, OverviewResponse } from '@switchyard/contracts';
import { applyFact, approvalAges, fromRead, isCountedFact, minuteSeries } from '../../ui/src/overview/overview-state';

const MINUTE = 60_000;
/** 2026-12-04 10:00:00 UTC. */
const T0 = Date.UTC(2026, 11, 4, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

/** A read of a 10-minute window ending in the minute of T0 + 9 min, through seq 100. */
function read(overrides: Partial<OverviewResponse> = {}): OverviewResponse {
  return {
    windowMinutes: 10,
    from: iso(T0),
    asOf: iso(T0 + 9 * MINUTE + 30_000),
    throughSeq: 100,
    runs: {
      minutes: [{ minute: iso(T0 + 2 * MINUTE), completed: 3, failed: 1, cancelled: 0, dropped: 0, p95Ms: 1_500 }],
      totals: { completed: 3, failed: 1, cancelled: 0, dropped: 0 },
      failureRate: 0.25,
      p95Ms: 1_500,
    },
    queues: [],
    awaitingEvent: 0,
    spend: { days: [], agents: [] },
    approvals: { pending: 1, oldest: [{ id: 'a-1', agentId: 'agent-1', requestedAt: iso(T0 - 2 * 3_600_000) }] },
    ...overrides,
  };
}

let seq = 100;
const system = { type: 'system' as const, id: 'switchyard' };
function runEnd(status: string, at: number, extra: Partial<Fact> = {}): Fact {
  return { id: `f-${++seq}`, seq, workspace: 'acme', kind: `agent.run.${status}`, subject: { type: 'run', id: `r-${seq}` }, actor: system, payload: { status }, ts: iso(at), ...extra };
}
function approvalFact(kind: string, id: string, status: string, requestedAt: number): Fact {
  return { id: `f-${++seq}`, seq, workspace: 'acme', kind, subject: { type: 'approval', id }, actor: system, payload: { id, status, agentId: 'agent-1', requestedAt: iso(requestedAt) }, ts: iso(requestedAt) };
}

/**
 * Issue 36 item 7: how the overview page folds live facts into its last read
 * (decision 0036): counted once by seq, in the UTC minute of the fact, only
 * the platform's own run facts, approvals merged by id.
 */
describe("overview state (the page's fold of facts over a read)", () => {
  beforeEach(() => {
    seq = 100;
  });

  it("adds a run's end to its minute and the window, once, whatever the order of read and fact", () => {
    const state = fromRead(read(), T0 + 9 * MINUTE + 30_000);
    const fact = runEnd('completed', T0 + 9 * MINUTE + 10_000);
    const once = applyFact(state, fact);
    expect(applyFact(once, fact)).toBe(once);
    const series = minuteSeries(once, T0 + 9 * MINUTE + 40_000);
    expect(series.x).toHaveLength(10);
    expect(series.x[0]).toBe(T0 / 1000);
    expect(series.totals).toEqual({ completed: 4, failed: 1, cancelled: 0, dropped: 0 });
    expect(series.counts[9]).toEqual({ completed: 1, failed: 0, cancelled: 0, dropped: 0, p95Ms: null });
    // The read's p95 stays with its minute: a fact does not carry a duration.
    expect(series.counts[2]!.p95Ms).toBe(1_500);
  });

  it('skips a fact the read already counted (seq at or below throughSeq)', () => {
    const state = fromRead(read(), T0 + 9 * MINUTE);
    const counted = { ...runEnd('failed', T0 + 2 * MINUTE), seq: 100 };
    expect(applyFact(state, counted)).toBe(state);
  });

  it("counts only the platform's own run ends, not a producer's fact of the same kind nor other run facts", () => {
    const state = fromRead(read(), T0 + 9 * MINUTE);
    const forged = runEnd('failed', T0 + 9 * MINUTE, { actor: { type: 'member', id: 'u-1' } });
    const started = runEnd('started', T0 + 9 * MINUTE);
    expect(isCountedFact(forged)).toBe(false);
    expect(isCountedFact(started)).toBe(false);
    const after = [forged, started].reduce(applyFact, state);
    expect(minuteSeries(after, T0 + 9 * MINUTE).totals.failed).toBe(1);
  });

  it('drops the minutes that fall out of the window as time goes on', () => {
    const state = fromRead(read(), T0 + 9 * MINUTE);
    expect(minuteSeries(state, T0 + 11 * MINUTE + 1).totals.completed).toBe(3);
    expect(minuteSeries(state, T0 + 12 * MINUTE + 1).totals.completed).toBe(0);
  });

  it("follows the server's clock: a browser clock 5 minutes slow sees the window the server does", () => {
    const state = fromRead(read(), T0 + 4 * MINUTE + 30_000);
    expect(state.skewMs).toBe(5 * MINUTE);
    expect(minuteSeries(state, T0 + 4 * MINUTE + 30_000).x.at(-1)).toBe((T0 + 9 * MINUTE) / 1000);
  });

  it('keeps an approval pending until a fact says otherwise; the ages follow the clock', () => {
    let state = fromRead(read(), T0 + 9 * MINUTE + 30_000);
    expect(approvalAges(state, T0 + 9 * MINUTE + 30_000)).toEqual([0, 0, 0, 0, 1, 0, 0]);
    const requested = approvalFact('approval.requested', 'a-2', 'pending', T0 + 9 * MINUTE);
    state = applyFact(state, requested);
    expect(approvalAges(state, T0 + 9 * MINUTE + 30_000)).toEqual([1, 0, 0, 0, 1, 0, 0]);
    expect(approvalAges(state, T0 + 12 * MINUTE)).toEqual([0, 1, 0, 0, 1, 0, 0]);
    expect(approvalAges(state, T0 + 16 * MINUTE)).toEqual([0, 0, 1, 0, 1, 0, 0]);
    state = applyFact(state, approvalFact('approval.decided', 'a-1', 'approved', T0 - 2 * 3_600_000));
    state = applyFact(state, approvalFact('approval.expired', 'a-2', 'expired', T0 + 9 * MINUTE));
    expect([...state.pending.keys()]).toEqual([]);
  });

  it('converges when a read saw a change whose facts come after its seq: the later facts are folded in order', () => {
    // The read already shows a-1 decided (not listed), while its facts, after throughSeq, arrive as requested then decided.
    const state = fromRead(read({ approvals: { pending: 0, oldest: [] } }), T0 + 9 * MINUTE);
    const requested = approvalFact('approval.requested', 'a-1', 'pending', T0);
    const decided = approvalFact('approval.decided', 'a-1', 'denied', T0);
    const between = applyFact(state, requested);
    expect(between.pending.size).toBe(1);
    expect(applyFact(between, decided).pending.size).toBe(0);
  });

  it('counts the pending approvals the read did not list beyond its first 500', () => {
    const state = fromRead(read({ approvals: { pending: 7, oldest: [{ id: 'a-1', agentId: 'agent-1', requestedAt: iso(T0) }] } }), T0);
    expect(state.unlisted).toBe(6);
  });

  it('ignores an approval fact whose payload does not read as an approval', () => {
    const state = fromRead(read(), T0 + 9 * MINUTE);
    const odd: Fact = { ...approvalFact('approval.requested', 'a-9', 'pending', T0), payload: { status: 'pending', agentId: 'x', requestedAt: 'yesterday' } };
    expect(isCountedFact(odd)).toBe(false);
    expect(applyFact(state, odd).pending.has('a-9')).toBe(false);
  });
});
