import { compileKindGlob, kindGlobLiteralPrefix, matchesKindGlob } from '@switchyard/core';

describe('kind globs', () => {
  const cases: Array<[string, string, boolean]> = [
    ['scorecard.completed', 'scorecard.completed', true],
    ['scorecard.completed', 'scorecard.completed.x', false],
    ['scorecard.*', 'scorecard.completed', true],
    ['scorecard.*', 'scorecard', false],
    ['scorecard.*', 'scorecard.a.b', false],
    ['*.failed', 'build.failed', true],
    ['*.failed', 'build.x.failed', false],
    ['**', 'a', true],
    ['**', 'a.b.c', true],
    ['agent.**', 'agent', true],
    ['agent.**', 'agent.run.started', true],
    ['agent.**', 'agents.run', false],
    ['**.failed', 'failed', true],
    ['**.failed', 'a.b.failed', true],
    ['**.failed', 'a.b.failed.not', false],
    ['a.**.z', 'a.z', true],
    ['a.**.z', 'a.b.c.z', true],
    ['a.**.z', 'a.b.c', false],
    ['*.**', 'a', true],
    ['*.*', 'a', false],
  ];
  it.each(cases)('%s vs %s → %s', (glob, kind, expected) => {
    expect(matchesKindGlob(glob, kind)).toBe(expected);
  });

  it('stays fast on adversarial globs', () => {
    const glob = Array.from({ length: 40 }, () => '**').join('.') + '.x';
    const kind = Array.from({ length: 60 }, () => 'a').join('.');
    const matcher = compileKindGlob(glob);
    const started = process.hrtime.bigint();
    expect(matcher.test(kind)).toBe(false);
    // Correctness is the assertion; the time bound only guards against an exponential matcher.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });

  it('gives the literal prefix for index narrowing', () => {
    expect(kindGlobLiteralPrefix('agent.run.*')).toBe('agent.run');
    expect(kindGlobLiteralPrefix('*.failed')).toBe('');
    expect(kindGlobLiteralPrefix('a.b')).toBe('a.b');
  });
});
