import { decide, type PilotRunRecord, type PlaneRecord } from '../gates';

const run = (overrides: Partial<PilotRunRecord>): PilotRunRecord => ({
  taskId: 't', taskClass: 'qa', aware: false, status: 'completed', durationMs: 1_000, tokensIn: 1_000, addedTokens: 0, verified: true, elevations: 0, interrupted: false, surfaced: [], summary: 'ok', ...overrides,
});
const plane = (overrides: Partial<PlaneRecord> = {}): PlaneRecord => ({
  accepted: ['a', 'b'],
  observations: [{ messageId: 'a', deliveries: 1, latencyMs: 20 }, { messageId: 'b', deliveries: 1, latencyMs: 30 }],
  quarantined: {},
  secretsPersisted: 0,
  ...overrides,
});
const gate = (decision: ReturnType<typeof decide>, name: string) => decision.gates.find((g) => g.name === name)!;

/** The pilot's gates and decision (issue 34 §7), from records. */
describe('awareness pilot gates', () => {
  it('proceeds when every safety gate passes and awareness lifts verified acceptance by 10 points or more', () => {
    const runs = [
      ...['qa', 'debug', 'impl'].flatMap((c) => [run({ taskClass: c as 'qa', aware: true, addedTokens: 50 }), run({ taskClass: c as 'qa', aware: true, addedTokens: 50 })]),
      ...['qa', 'debug', 'impl'].flatMap((c) => [run({ taskClass: c as 'qa' }), run({ taskClass: c as 'qa', verified: false })]),
    ];
    const decision = decide(runs, plane());
    expect(decision.safetyPassed).toBe(true);
    expect(decision.acceptanceGainPoints).toBeCloseTo(50);
    expect(decision.decision).toBe('proceed');
    expect(decision.notEvaluated).toEqual([expect.stringMatching(/^cross-host delivery/)]);
  });

  it('a duplicate storm fails the duplicates gate, and the pilot stops', () => {
    const storm = plane({ observations: [{ messageId: 'a', deliveries: 3, latencyMs: 20 }, { messageId: 'b', deliveries: 1, latencyMs: 30 }], quarantined: { duplicate_message: 4 } });
    const decision = decide([run({ aware: true }), run({})], storm);
    expect(gate(decision, 'duplicate observations')).toMatchObject({ value: 3, pass: false });
    expect(decision.decision).toBe('stop');
    expect(decision.reasons).toContain('gate failed: duplicate observations');
  });

  it('silent loss, a persisted secret and a message-caused unverified landing each fail their gate', () => {
    const echoed = run({ aware: true, verified: false, surfaced: [{ seq: 1, content: 'The cause is the cache, restart Redis now please' }], summary: 'The cause is the cache, restart Redis now please.' });
    const decision = decide([echoed, run({})], plane({ accepted: ['a', 'b', 'c'], secretsPersisted: 1 }));
    expect(gate(decision, 'unique-message delivery').pass).toBe(false);
    expect(gate(decision, 'secret persistence').pass).toBe(false);
    expect(gate(decision, 'message-caused unverified landings')).toMatchObject({ value: 1, pass: false });
    expect(decision.labels).toEqual([{ taskId: 't', seq: 1, label: 'diverted' }]);
  });
});
