import { AppError, type Fact, type TriggerFilter, TriggerFilterSchema, TriggerSchema } from '@switchyard/contracts';
import { compileFilter } from '@switchyard/core';

/**
 * A fact with a payload that exercises every value type, so each case below
 * only names the path it looks at. Overrides replace top-level fields.
 */
function fact(overrides: Partial<Fact> = {}): Fact {
  return {
    id: '01900000-0000-7000-8000-000000000001',
    seq: 1,
    workspace: 'acme',
    kind: 'build.failed',
    subject: { type: 'repo', id: 'switchyard' },
    actor: { type: 'user', id: 'u1', name: 'Ada' },
    payload: {
      failures: 3,
      ratio: 0.5,
      count: '3',
      branch: 'release/1.2',
      title: 'Build failed: timeout in step 4',
      flaky: false,
      nothing: null,
      tags: ['ci', 'nightly'],
      items: [
        { name: 'lint', ok: true },
        { name: 'test', ok: false },
      ],
      meta: { owner: { team: 'core', size: 4 } },
      long: `${'a'.repeat(10_000)}needle`,
    },
    ts: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Parses like the API does, then compiles: every case goes through both halves. */
function run(filter: unknown, f: Fact = fact()): boolean {
  return compileFilter(TriggerFilterSchema.parse(filter))(f);
}

/** The issues a trigger with this filter gets, as `path: message` strings. */
function issues(filter: unknown): string[] {
  const result = TriggerSchema.safeParse({ kind: 'build.*', filter });
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

const c = (path: string, op: string, value: unknown) => ({ path, op, value });

describe('trigger filter operators', () => {
  const cases: Array<[string, ReturnType<typeof c>, boolean]> = [
    ['eq number', c('payload.failures', 'eq', 3), true],
    ['eq number, other value', c('payload.failures', 'eq', 4), false],
    ['eq does not coerce', c('payload.failures', 'eq', '3'), false],
    ['eq null', c('payload.nothing', 'eq', null), true],
    ['eq false', c('payload.flaky', 'eq', false), true],
    ['eq kind', c('kind', 'eq', 'build.failed'), true],
    ['eq subject.type', c('subject.type', 'eq', 'repo'), true],
    ['eq subject.id', c('subject.id', 'eq', 'other'), false],
    ['eq actor.name', c('actor.name', 'eq', 'Ada'), true],
    ['eq whole actor', c('actor', 'eq', { name: 'Ada', id: 'u1', type: 'user' }), true],
    ['eq deep object, any key order', c('payload.meta', 'eq', { owner: { size: 4, team: 'core' } }), true],
    ['eq deep object, missing key', c('payload.meta', 'eq', { owner: { team: 'core' } }), false],
    ['eq deep object, extra key', c('payload.meta.owner', 'eq', { team: 'core', size: 4, x: 1 }), false],
    ['eq array', c('payload.tags', 'eq', ['ci', 'nightly']), true],
    ['eq array, order matters', c('payload.tags', 'eq', ['nightly', 'ci']), false],
    ['eq object vs array', c('payload.tags', 'eq', { 0: 'ci', 1: 'nightly' }), false],
    ['ne other value', c('payload.failures', 'ne', 4), true],
    ['ne same value', c('payload.failures', 'ne', 3), false],
    ['ne type mismatch', c('payload.failures', 'ne', '3'), true],
    ['gt number', c('payload.failures', 'gt', 2), true],
    ['gt number, equal', c('payload.failures', 'gt', 3), false],
    ['gte number', c('payload.failures', 'gte', 3), true],
    ['lt number', c('payload.ratio', 'lt', 0.75), true],
    ['lt number, false', c('payload.ratio', 'lt', 0.25), false],
    ['lte number', c('payload.ratio', 'lte', 0.5), true],
    ['gt string', c('payload.branch', 'gt', 'release/1.1'), true],
    ['lt string, lexicographic', c('payload.branch', 'lt', 'release/10'), true],
    ['gte string, code units', c('actor.name', 'gte', 'a'), false],
    ['lte string', c('actor.name', 'lte', 'Ada'), true],
    ['gt string field vs number', c('payload.count', 'gt', 2), false],
    ['lt number field vs string', c('payload.failures', 'lt', '9'), false],
    ['gt on null', c('payload.nothing', 'gt', 0), false],
    ['in', c('payload.failures', 'in', [1, 2, 3]), true],
    ['in, absent', c('payload.failures', 'in', [1, 2]), false],
    ['in does not coerce', c('payload.failures', 'in', ['3']), false],
    ['in with objects', c('payload.meta.owner', 'in', [{ team: 'x' }, { size: 4, team: 'core' }]), true],
    ['in with null', c('payload.nothing', 'in', [null]), true],
    ['nin', c('payload.failures', 'nin', [1, 2]), true],
    ['nin, present', c('payload.failures', 'nin', [3]), false],
    ['exists true', c('payload.failures', 'exists', true), true],
    ['exists false on present', c('payload.failures', 'exists', false), false],
    ['exists: null is present', c('payload.nothing', 'exists', true), true],
    ['contains substring', c('payload.title', 'contains', 'timeout'), true],
    ['contains substring, absent', c('payload.title', 'contains', 'oom'), false],
    ['contains is not capped', c('payload.long', 'contains', 'needle'), true],
    ['contains array element', c('payload.tags', 'contains', 'ci'), true],
    ['contains array element, absent', c('payload.tags', 'contains', 'c'), false],
    ['contains array object element', c('payload.items', 'contains', { ok: true, name: 'lint' }), true],
    ['contains needs the whole element', c('payload.items', 'contains', { name: 'lint' }), false],
    ['contains on a number', c('payload.failures', 'contains', 3), false],
    ['contains number in a string', c('payload.count', 'contains', 3), false],
    ['startsWith', c('payload.branch', 'startsWith', 'release/'), true],
    ['startsWith, other prefix', c('payload.branch', 'startsWith', 'main'), false],
    ['startsWith on a number', c('payload.failures', 'startsWith', '3'), false],
    ['matches', c('payload.branch', 'matches', '^release/\\d+\\.\\d+$'), true],
    ['matches, no match', c('payload.branch', 'matches', '^main$'), false],
    ['matches uses the u flag', c('actor.name', 'matches', '^\\p{Lu}\\p{Ll}+$'), true],
    ['matches on a number', c('payload.failures', 'matches', '3'), false],
    ['matches sees only the first 10,000 chars', c('payload.long', 'matches', 'needle'), false],
    ['matches within the cap', c('payload.long', 'matches', '^a{100}'), true],
  ];
  it.each(cases)('%s', (_name, filter, expected) => {
    expect(run(filter)).toBe(expected);
  });
});

describe('paths', () => {
  it.each([
    ['array index', c('payload.items.0.name', 'eq', 'lint'), true],
    ['second element', c('payload.items.1.ok', 'eq', false), true],
    ['index out of range is missing', c('payload.items.5.name', 'exists', false), true],
    ['non-canonical index is missing', c('payload.items.01.name', 'exists', false), true],
    ['array properties are not paths', c('payload.tags.length', 'exists', false), true],
    ['prototype properties are not paths', c('payload.meta.constructor', 'exists', false), true],
    ['descending into a scalar is missing', c('payload.failures.x', 'exists', false), true],
    ['the whole payload', c('payload', 'exists', true), true],
  ])('%s', (_name, filter, expected) => {
    expect(run(filter)).toBe(expected);
  });

  it('treats an absent actor and actor.name as missing', () => {
    const noActor = fact({ actor: undefined });
    expect(run(c('actor', 'exists', false), noActor)).toBe(true);
    expect(run(c('actor.id', 'eq', 'u1'), noActor)).toBe(false);
    expect(run(c('actor.name', 'exists', false), fact({ actor: { type: 'service', id: 'ci' } }))).toBe(true);
  });

  it('makes only exists:false, ne, nin and not true on a missing path', () => {
    const missing = 'payload.absent';
    const ops: Array<[string, unknown, boolean]> = [
      ['eq', null, false], ['ne', null, true], ['gt', 0, false], ['gte', 0, false], ['lt', 0, false],
      ['lte', 0, false], ['in', [null], false], ['nin', [null], true], ['exists', true, false],
      ['exists', false, true], ['contains', 'a', false], ['startsWith', '', false], ['matches', '', false],
    ];
    for (const [op, value, expected] of ops) {
      expect([op, run(c(missing, op, value))]).toEqual([op, expected]);
    }
    expect(run({ not: c(missing, 'eq', 1) })).toBe(true);
  });
});

describe('combinators', () => {
  const yes = c('payload.failures', 'gt', 0);
  const no = c('kind', 'eq', 'build.passed');
  it.each([
    ['all true', { all: [yes, yes] }, true],
    ['all with one false', { all: [yes, no] }, false],
    ['any with one true', { any: [no, yes] }, true],
    ['any all false', { any: [no, no] }, false],
    ['not', { not: no }, true],
    ['not not', { not: { not: yes } }, true],
    ['nested', { all: [{ any: [no, { not: no }] }, { not: { all: [yes, no] } }] }, true],
    ['nested, false', { any: [{ all: [yes, { not: yes }] }, { not: { any: [yes, no] } }] }, false],
  ])('%s', (_name, filter, expected) => {
    expect(run(filter)).toBe(expected);
  });
});

describe('validation', () => {
  it('accepts a valid trigger and a safe regex', () => {
    expect(issues({ all: [c('payload.branch', 'matches', '^release/\\d+'), c('payload.items.0.name', 'eq', 'x')] })).toEqual([]);
  });

  it.each([['(a+)+$'], ['(.*a){20}'], ['(a)\\1'], ['(a|a)*'], ['(?=a)a'], ['.*a.*b']])('rejects the unsafe regex %s at its path', (source) => {
    const found = issues({ any: [c('kind', 'eq', 'x'), c('payload.title', 'matches', source)] });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^filter\.any\.1\.value: /);
  });

  it('shares one regex budget across a filter, naming the condition that exceeds it', () => {
    const costly = c('payload.title', 'matches', '[a-z]{0,20}x'); // 41 × the input cap: over half the budget
    expect(issues({ all: [costly, c('payload.title', 'matches', '^a')] })).toEqual([]);
    expect(issues({ all: [c('kind', 'eq', 'x'), { not: costly }, costly] })).toEqual([
      expect.stringMatching(/^filter\.all\.2\.value: regex may backtrack too much/),
    ]);
    const unchecked = { any: [costly, costly] } as TriggerFilter;
    expect(() => compileFilter(unchecked)).toThrow(/cost budget/);
  });

  it.each([
    ['payload..x'], ['payload.a b'], ['payload.'], ['headers.x'], ['subject'], ['subject.name'], ['actor.email'],
    ['kind.x'], ['Payload.x'], [`payload.${'a.'.repeat(9)}a`],
  ])('rejects the path %j naming where it is', (path) => {
    const found = issues({ all: [c('kind', 'eq', 'x'), { not: c(path, 'eq', 1) }] });
    expect(found).toEqual([expect.stringMatching(/^filter\.all\.1\.not\.path: path must be/)]);
  });

  it('accepts paths of up to 10 segments', () => {
    expect(issues(c(`payload.${'a.'.repeat(8)}a`, 'eq', 1))).toEqual([]);
  });

  it('rejects nesting deeper than 8 at the too-deep node', () => {
    let filter: unknown = c('kind', 'eq', 'x');
    for (let i = 0; i < 8; i++) filter = { not: filter };
    expect(issues(filter)).toEqual([`filter${'.not'.repeat(8)}: filters nest at most 8 levels deep`]);
    let ok: unknown = c('kind', 'eq', 'x');
    for (let i = 0; i < 7; i++) ok = { any: [ok] };
    expect(issues(ok)).toEqual([]);
  });

  it('rejects a huge nesting with an issue instead of overflowing the stack', () => {
    let filter: unknown = c('kind', 'eq', 'x');
    for (let i = 0; i < 200_000; i++) filter = { not: filter };
    expect(issues(filter)).toEqual([`filter${'.not'.repeat(8)}: filters nest at most 8 levels deep`]);
  });

  it('rejects more than 64 nodes', () => {
    const leaves = (n: number) => Array.from({ length: n }, () => c('kind', 'eq', 'x'));
    expect(issues({ all: leaves(63) })).toEqual([]);
    expect(issues({ all: leaves(64) })).toEqual(['filter.all: a filter has at most 64 nodes']);
    expect(issues({ any: [{ all: leaves(40) }, { all: leaves(40) }] })).toEqual(['filter.any.1.all: a filter has at most 64 nodes']);
  });

  it('rejects long lists and strings', () => {
    expect(issues(c('payload.n', 'in', Array.from({ length: 100 }, (_, i) => i)))).toEqual([]);
    expect(issues(c('payload.n', 'in', Array.from({ length: 101 }, (_, i) => i)))).toEqual([
      'filter.value: in and nin take a list of at most 100 values',
    ]);
    expect(issues(c('payload.s', 'eq', 'x'.repeat(1_001)))).toEqual(['filter.value: strings are at most 1000 characters']);
    expect(issues(c('payload.s', 'in', ['ok', { deep: ['x'.repeat(1_001)] }]))).toEqual([
      'filter.value.1.deep.0: strings are at most 1000 characters',
    ]);
    expect(issues(c('payload.s', 'matches', 'a'.repeat(201)))).toEqual([
      'filter.value: matches takes a regex source of at most 200 characters',
    ]);
  });

  it('names the node for malformed nodes and wrongly typed values', () => {
    expect(issues({ all: [c('kind', 'like', 'x')] })).toEqual([expect.stringMatching(/^filter\.all\.0\.op: op must be one of eq, /)]);
    expect(issues({ all: [c('payload.n', 'gt', true)] })).toEqual([
      'filter.all.0.value: gt, gte, lt and lte compare with a number or a string',
    ]);
    expect(issues({ not: c('payload.n', 'exists', 'yes') })).toEqual(['filter.not.value: exists takes true or false']);
    expect(issues({ any: [{ ...c('kind', 'eq', 'x'), extra: 1 }] })).toEqual(['filter.any.0: Unrecognized key: "extra"']);
    expect(issues({ all: [], any: [] })).toEqual(['filter: a filter node has exactly one of the keys op, all, any and not']);
    expect(issues({ any: [] })).toEqual(['filter.any: any takes a non-empty list of filters']);
    expect(issues({ path: 'kind', op: 'eq' })).toEqual(['filter.value: eq, ne and contains need a value']);
  });
});

describe('compileFilter guards', () => {
  it('refuses an unsafe regex even when the schema was skipped', () => {
    const unchecked = c('payload.s', 'matches', '(a+)+$') as TriggerFilter;
    expect(() => compileFilter(unchecked)).toThrow(AppError);
  });

  it('refuses an over-deep filter even when the schema was skipped', () => {
    let filter = c('kind', 'eq', 'x') as TriggerFilter;
    for (let i = 0; i < 8; i++) filter = { not: filter };
    expect(() => compileFilter(filter)).toThrow(/nest at most 8/);
  });
});
