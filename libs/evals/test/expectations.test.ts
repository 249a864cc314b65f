import { failedExpectations, valueAtPath, type TrialOutcome } from '../src';

const trial = (over: Partial<TrialOutcome> = {}): TrialOutcome => ({
  status: 'completed',
  summary: 'escalated T-1',
  tokens: 100,
  costUsd: 0.01,
  calls: [
    { tool: 'platform.list_events', arguments: { after: 0 }, wouldHave: false },
    { tool: 'platform.emit_event', arguments: { kind: 'ticket.escalated', subject: { type: 'ticket', id: 'T-1' } }, wouldHave: true },
  ],
  ...over,
});

describe('the deterministic checks of an eval trial (issue 35 §1)', () => {
  it('reads dot paths into arguments', () => {
    expect(valueAtPath({ a: { b: [1, { c: 2 }] } }, 'a.b.1.c')).toBe(2);
    expect(valueAtPath({ a: 1 }, 'a.b')).toBeUndefined();
  });

  it('passes a trial that meets every expectation', () => {
    const expectations = {
      wouldCall: [{ tool: 'platform.emit_event', args: { kind: 'ticket.escalated', 'subject.id': 'T-1' } }],
      wouldNotCall: ['platform.start_run'],
      status: 'completed' as const,
      summaryIncludes: 'escalated',
      maxTokens: 100,
      maxCostUsd: 0.01,
    };
    expect(failedExpectations(expectations, trial())).toEqual([]);
  });

  it('names each failed check', () => {
    const failures = failedExpectations(
      {
        wouldCall: [{ tool: 'platform.emit_event', args: { 'subject.id': 'T-2' } }, { tool: 'platform.list_events' }],
        wouldNotCall: ['platform.emit_event'],
        status: 'failed',
        summaryIncludes: 'closed',
        maxTokens: 99,
        maxCostUsd: 0.001,
      },
      trial(),
    );
    expect(failures).toHaveLength(7);
    expect(failures[1]).toContain('platform.list_events'); // a live read is no wouldHave
  });
});
