import { checkRegexSafety, type Fact, MAX_PAYLOAD_BYTES, REGEX_MAX_COST, TriggerFilterSchema } from '@switchyard/contracts';
import { compileFilter, explainFilter, type FilterMiss } from '@switchyard/core';
import { pick, prng } from '@switchyard/testing';

type Rand = () => number;

// Small value domains, so that generated filters and facts often agree and both outcomes occur.
const SCALARS = [0, 1, 2, -1, 1.5, 'a', 'b', 'ab', 'ba', 'A', '', true, false, null] as const;
const STRINGS = ['a', 'b', 'ab', 'ba', 'A', ''] as const;
const REGEXES = ['^a', 'b$', '^a.*', 'ab', '^\\d+$', '[ab]{2}', '^$', '^(a|b)b?$'] as const;
const PATHS = [
  'kind', 'subject.type', 'subject.id', 'actor', 'actor.type', 'actor.id', 'actor.name', 'payload',
  'payload.s', 'payload.n', 'payload.arr', 'payload.arr.0', 'payload.arr.1', 'payload.arr.0.k',
  'payload.obj', 'payload.obj.k', 'payload.obj.deep.k', 'payload.missing', 'payload.s.0',
] as const;
const OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains', 'startsWith', 'matches'] as const;

function randomJson(rand: Rand, depth = 0): unknown {
  const r = rand();
  if (depth < 2 && r < 0.15) return Array.from({ length: Math.floor(rand() * 3) }, () => randomJson(rand, depth + 1));
  if (depth < 2 && r < 0.25) return rand() < 0.5 ? { k: randomJson(rand, depth + 1) } : { k: pick(rand, SCALARS), deep: { k: 'a' } };
  return pick(rand, SCALARS);
}

function randomFact(rand: Rand): Fact {
  const payload: Record<string, unknown> = {};
  for (const key of ['s', 'n', 'arr', 'obj']) {
    if (rand() < 0.8) payload[key] = key === 'arr' && rand() < 0.6 ? [randomJson(rand), randomJson(rand)] : randomJson(rand);
  }
  const actor = rand() < 0.7 ? { type: 'user' as const, id: pick(rand, STRINGS) || 'u', ...(rand() < 0.5 ? { name: pick(rand, STRINGS) } : {}) } : undefined;
  return {
    id: '01900000-0000-7000-8000-000000000001',
    seq: 1,
    workspace: 'acme',
    kind: pick(rand, ['a', 'b', 'ab.c']),
    subject: { type: pick(rand, ['a', 'b']), id: pick(rand, ['a', 'ab', '1']) },
    ...(actor ? { actor } : {}),
    payload: payload as Fact['payload'],
    ts: '2026-01-01T00:00:00.000Z',
  };
}

function randomCondition(rand: Rand): unknown {
  const op = pick(rand, OPS);
  const path = pick(rand, PATHS);
  const value =
    op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte' ? pick(rand, [0, 1, 1.5, 'a', 'ab', 'b'])
    : op === 'in' || op === 'nin' ? Array.from({ length: Math.floor(rand() * 4) }, () => randomJson(rand))
    : op === 'exists' ? rand() < 0.5
    : op === 'startsWith' ? pick(rand, STRINGS)
    : op === 'matches' ? pick(rand, REGEXES)
    : randomJson(rand);
  return { path, op, value };
}

function randomFilter(rand: Rand, depth = 1): unknown {
  if (depth >= 4 || rand() < 0.45) return randomCondition(rand);
  const r = rand();
  if (r < 0.2) return { not: randomFilter(rand, depth + 1) };
  const children = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => randomFilter(rand, depth + 1));
  return r < 0.6 ? { all: children } : { any: children };
}

/**
 * The reference evaluator: the semantics written as plainly as possible
 * (canonical JSON for equality, a generic walk for paths), independent of the
 * compiled implementation.
 */
const MISSING = Symbol('missing');
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as any)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v);
}
function resolve(fact: Fact, path: string): unknown {
  let current: any = { kind: fact.kind, subject: fact.subject, actor: fact.actor, payload: fact.payload };
  for (const seg of path.split('.')) {
    if (current === null || typeof current !== 'object') return MISSING;
    if (Array.isArray(current) && !/^(0|[1-9]\d*)$/.test(seg)) return MISSING;
    if (!Object.prototype.hasOwnProperty.call(current, seg)) return MISSING;
    current = current[seg];
    if (current === undefined) return MISSING;
  }
  return current;
}
function reference(filter: any, fact: Fact): boolean {
  if ('all' in filter) return filter.all.every((f: unknown) => reference(f, fact));
  if ('any' in filter) return filter.any.some((f: unknown) => reference(f, fact));
  if ('not' in filter) return !reference(filter.not, fact);
  const v = resolve(fact, filter.path);
  const x = filter.value;
  const same = (a: unknown, b: unknown) => a !== MISSING && canonical(a) === canonical(b);
  const comparable = (typeof v === 'number' && typeof x === 'number') || (typeof v === 'string' && typeof x === 'string');
  switch (filter.op) {
    case 'eq': return same(v, x);
    case 'ne': return !same(v, x);
    case 'gt': return comparable && (v as any) > x;
    case 'gte': return comparable && (v as any) >= x;
    case 'lt': return comparable && (v as any) < x;
    case 'lte': return comparable && (v as any) <= x;
    case 'in': return x.some((item: unknown) => same(v, item));
    case 'nin': return !x.some((item: unknown) => same(v, item));
    case 'exists': return (v !== MISSING) === x;
    case 'contains':
      if (typeof v === 'string') return typeof x === 'string' && v.indexOf(x) >= 0;
      return Array.isArray(v) && v.some((item) => same(item, x));
    case 'startsWith': return typeof v === 'string' && typeof x === 'string' && v.slice(0, x.length) === x;
    case 'matches': return typeof v === 'string' && new RegExp(x, 'u').test(v.slice(0, 10_000));
    default: throw new Error(`unknown op ${filter.op}`);
  }
}

describe('compileFilter against a reference evaluator', () => {
  it('agrees on 500 random filters × 20 random facts', () => {
    const rand = prng(20_260_101);
    const outcomes = { true: 0, false: 0 };
    for (let i = 0; i < 500; i++) {
      const filter = TriggerFilterSchema.parse(randomFilter(rand));
      const predicate = compileFilter(filter);
      for (let j = 0; j < 20; j++) {
        const fact = randomFact(rand);
        const expected = reference(filter, fact);
        const actual = predicate(fact);
        if (actual !== expected) throw new Error(`filter ${i}, fact ${j}: ${JSON.stringify({ filter, fact, expected })}`);
        outcomes[String(actual) as 'true' | 'false']++;
      }
    }
    // Guard against a generator that makes the comparison vacuous.
    expect(outcomes.true).toBeGreaterThan(1_500);
    expect(outcomes.false).toBeGreaterThan(1_500);
  });
});

/** A miss is honest: the clause it names fails on the fact by the reference, and sits where it says. */
function checkMiss(filter: any, miss: FilterMiss, fact: Fact): void {
  const node = miss.at === '' ? filter : miss.at.split('.').reduce((n: any, key) => n[/^\d+$/.test(key) ? Number(key) : key], filter);
  expect(node).toEqual(miss.clause);
  if ('not' in node) expect(reference(node.not, fact)).toBe(true);
  else expect(reference(node, fact)).toBe(false);
  if ('any' in node) miss.branches!.forEach((branch) => checkMiss(filter, branch, fact));
  if ('path' in node) {
    const seen = resolve(fact, node.path);
    if (seen === MISSING) expect('seen' in miss).toBe(false);
    else if (JSON.stringify(seen).length <= 500) expect(miss.seen).toEqual(seen);
  }
}

describe('explainFilter', () => {
  it('is null exactly when the filter passes, and otherwise names a failing clause with what the fact held', () => {
    const rand = prng(20_261_201);
    let misses = 0;
    for (let i = 0; i < 300; i++) {
      const filter = TriggerFilterSchema.parse(randomFilter(rand));
      for (let j = 0; j < 10; j++) {
        const fact = randomFact(rand);
        const miss = explainFilter(filter, fact);
        expect(miss === null).toBe(reference(filter, fact));
        if (miss) {
          misses++;
          checkMiss(filter, miss, fact);
        }
      }
    }
    expect(misses).toBeGreaterThan(500);
  });

  it('quotes the value at the failing path, and says nothing when the path is missing', () => {
    const fact = randomFact(prng(1));
    const filter = TriggerFilterSchema.parse({ all: [{ path: 'kind', op: 'eq', value: fact.kind }, { path: 'payload.failures', op: 'gt', value: 0 }] });
    expect(explainFilter(filter, fact)).toEqual({ at: 'all.1', clause: { path: 'payload.failures', op: 'gt', value: 0 } });
    const withValue = { ...fact, payload: { failures: 0 } };
    expect(explainFilter(filter, withValue)).toEqual({ at: 'all.1', clause: { path: 'payload.failures', op: 'gt', value: 0 }, seen: 0 });
    expect(explainFilter(filter, { ...fact, payload: { failures: 3 } })).toBeNull();
  });
});

describe('bounded evaluation', () => {
  it('evaluates an adversarial accepted filter over 10,000 hostile facts quickly', () => {
    const leaf = (path: string, op: string, value: unknown) => ({ path, op, value });
    // Regexes that use up nearly all of the filter's regex budget, each fed the input that makes it backtrack most.
    const hostile = [
      leaf('payload.text', 'matches', '[a-z]{0,17}x'),
      leaf('payload.text', 'matches', 'error.{0,2}timeout'),
      leaf('payload.text', 'matches', '^[\\w.+-]+@example\\.com$'),
      leaf('payload.digits', 'matches', '^v\\d+\\.\\d+\\.\\d+$'),
      leaf('payload.wide', 'eq', Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]))),
      leaf('payload.items', 'contains', { deep: [1, 2, { x: 'y' }] }),
      leaf('payload.text', 'in', Array.from({ length: 100 }, (_, i) => ({ n: i }))),
    ];
    // Eight levels deep (conditions on level 8), every hostile condition evaluated before the decisive marker.
    let filter: unknown = { any: [...hostile, leaf('payload.marker', 'eq', true)] };
    for (const wrap of ['not', 'not', 'all', 'not', 'not', 'all']) {
      filter = wrap === 'not' ? { not: filter } : { all: [filter, leaf('kind', 'startsWith', 'x')] };
    }
    const predicate = compileFilter(TriggerFilterSchema.parse(filter));
    const regexCost = hostile.reduce((sum, h) => {
      const safety = h.op === 'matches' ? checkRegexSafety(h.value as string) : { ok: true as const, cost: 0 };
      return sum + (safety.ok ? safety.cost : Infinity);
    }, 0);
    expect(regexCost).toBeGreaterThan(0.9 * REGEX_MAX_COST);

    const rand = prng(7);
    const wide = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, i]));
    const items = Array.from({ length: 300 }, () => ({ deep: [1, 2, { x: 'z' }] }));
    const facts: Fact[] = Array.from({ length: 10_000 }, (_, i) => {
      // One fact in ten is longer than the matches cap; the rest carry strings of 1,000 to 3,000 chars.
      const length = i % 10 === 0 ? 12_000 : 1_000 + 5 * Math.floor(rand() * 400);
      return {
        id: '01900000-0000-7000-8000-000000000001',
        seq: i + 1,
        workspace: 'acme',
        kind: 'x.hostile',
        subject: { type: 'repo', id: 'r' },
        payload: {
          text: i % 3 === 0 ? 'error'.repeat(length / 5) : 'a'.repeat(length),
          digits: `v${'1'.repeat(length)}`,
          wide,
          items,
          marker: i % 2 === 0,
        },
        ts: '2026-01-01T00:00:00.000Z',
      };
    });
    // The bound relies on facts being no larger than ingestion allows; fact 0 is the largest.
    expect(Buffer.byteLength(JSON.stringify(facts[0]?.payload))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);

    const started = performance.now();
    const results = facts.map(predicate);
    const elapsedMs = performance.now() - started;

    expect(results).toEqual(facts.map((_, i) => i % 2 === 0));
    // Generous: exponential backtracking would take hours; this takes a few seconds.
    expect(elapsedMs).toBeLessThan(30_000);
  });
});
