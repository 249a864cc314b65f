import { checkRegexSafety, MATCHES_INPUT_MAX_CHARS, REGEX_MAX_COST } from '@switchyard/contracts';

const L = MATCHES_INPUT_MAX_CHARS;

function reason(source: string): string {
  const safety = checkRegexSafety(source);
  return safety.ok ? 'ok' : safety.reason;
}

describe('checkRegexSafety', () => {
  it.each([
    ['(a+)+$', /quantifier may only repeat one character/],
    ['(a*)*', /quantifier may only repeat one character/],
    ['(a|a)*', /quantifier may only repeat one character/],
    ['(.*a){20}', /quantifier may only repeat one character/],
    ['(?:a+){2}', /quantifier may only repeat one character/],
    ['((ab))+', /quantifier may only repeat one character/],
    ['(a)\\1', /backreferences/],
    ['(?<x>a)\\k<x>', /backreferences/],
    ['(?=a)a', /lookahead and lookbehind/],
    ['(?!a)b', /lookahead and lookbehind/],
    ['(?<=a)b', /lookahead and lookbehind/],
    ['(?<!a)b', /lookahead and lookbehind/],
    ['a{1001}', /at most 1000/],
    ['[', /invalid regex/],
    ['a{', /invalid regex/], // a lone brace is a syntax error in u-mode
    ['x'.repeat(201), /longer than 200/],
    ['.*x', /backtrack too much/], // unanchored: retried from every start, each scanning to the end
    ['error.*timeout', /backtrack too much/],
    ['\\w+@example\\.com$', /backtrack too much/],
    ['^.*a.*b', /backtrack too much/], // two ambiguous unbounded repetitions
    ['^a+a+b', /backtrack too much/], // the second scans once per length of the first
    ['a?a?a?a?a?a?x', /backtrack too much/], // 2^6 paths per start
    ['^(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b).*x', /backtrack too much/],
  ])('rejects %j', (source, expected) => {
    expect(reason(source)).toMatch(expected);
  });

  it.each([
    ['timeout', L],
    ['timeout|error|failure|crash', 4 * L], // one step per alternative and start
    ['^release/.*', L], // ends the pattern: no backtracking
    ['^v\\d+\\.\\d+\\.\\d+$', 3 * L], // each \d+ is followed by a character it cannot match
    ['^[\\w.+-]+@example\\.com$', L],
    ['^\\S+ \\S+$', 2 * L],
    ['^.*error', 6 * L],
    ['\\bfail(ed|ure)\\b', 4 * L],
    ['^(feat|fix|chore):', 6], // anchored: no factor for the start
    ['\\d{3}-\\d{4}', 7 * L],
    ['error.{0,5}timeout', 47 * L],
    ['[a-z]{0,31}x', 63 * L],
    ['^\\p{Lu}\\p{Ll}+$', L],
    ['x'.repeat(200), L],
  ])('accepts %j with cost %d', (source, cost) => {
    expect(checkRegexSafety(source)).toEqual({ ok: true, cost });
  });

  it('treats unknown character sets (\\p{…}) as overlapping everything', () => {
    expect(checkRegexSafety('^\\d+[a-z]')).toEqual({ ok: true, cost: L });
    expect(checkRegexSafety('^\\d+\\p{L}')).toEqual({ ok: true, cost: 2 * L });
    expect(reason('^\\p{L}+\\d+x')).toMatch(/backtrack too much/);
  });

  it('keeps accepted patterns fast on the inputs that make them backtrack most', () => {
    const hostile: Array<[string, string]> = [
      ['[a-z]{0,31}x', 'a'.repeat(L)],
      [`^.*${'a'.repeat(60)}x`, 'a'.repeat(L)],
      ['a?a?a?a?a?x', 'a'.repeat(L)],
      ['error.{0,5}timeout', 'errortimeou'.repeat(L / 11)],
      ['^v\\d+\\.\\d+\\.\\d+$', `v${'1'.repeat(L)}`],
    ];
    for (const [source, input] of hostile) {
      const safety = checkRegexSafety(source);
      expect([source, safety.ok && safety.cost <= REGEX_MAX_COST]).toEqual([source, true]);
      const re = new RegExp(source, 'u');
      const started = performance.now();
      expect(re.test(input)).toBe(false);
      // Generous: the cost bound is ~2 ms of V8 time; a quadratic pattern would take ~200 ms, an exponential one forever.
      expect([source, performance.now() - started < 100]).toEqual([source, true]);
    }
  });
});
