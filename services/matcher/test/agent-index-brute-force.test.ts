import type { Fact } from '@switchyard/contracts';
import { compileFilter, matchesKindGlob } from '@switchyard/core';
import { AgentIndex, type AgentRecord } from '../src/agent-index';
import { agentRecord, factOf, pick, prng } from './agent-fixtures';

// Small vocabularies, so that generated globs, filters and facts often agree and both outcomes are common.
const SEGMENTS = ['a', 'b', 'c'] as const;
const WORKSPACES = ['ws-1', 'ws-2'] as const;

type Rand = () => number;

/** A glob of 1–4 segments: literals, `*` and `**` in every position, so every bucket of the index is used. */
function randomGlob(rand: Rand): string {
  const length = 1 + Math.floor(rand() * 4);
  return Array.from({ length }, () => {
    const r = rand();
    return r < 0.55 ? pick(rand, SEGMENTS) : r < 0.8 ? '*' : '**';
  }).join('.');
}

function randomCondition(rand: Rand): unknown {
  switch (Math.floor(rand() * 5)) {
    case 0:
      return { path: 'payload.n', op: pick(rand, ['gt', 'lte', 'eq'] as const), value: Math.floor(rand() * 4) };
    case 1:
      return { path: 'payload.s', op: 'in', value: [pick(rand, ['x', 'y', 'z']), pick(rand, ['x', 'y', 'z'])] };
    case 2:
      return { path: 'subject.type', op: 'eq', value: pick(rand, ['build', 'deploy']) };
    case 3:
      return { path: 'actor', op: 'exists', value: rand() < 0.5 };
    default:
      return { path: 'kind', op: 'startsWith', value: pick(rand, SEGMENTS) };
  }
}

function randomFilter(rand: Rand): unknown {
  const r = rand();
  if (r < 0.5) return randomCondition(rand);
  if (r < 0.7) return { all: [randomCondition(rand), randomCondition(rand)] };
  if (r < 0.9) return { any: [randomCondition(rand), randomCondition(rand)] };
  return { not: randomCondition(rand) };
}

function randomAgent(rand: Rand, n: number): AgentRecord {
  const triggers = Array.from({ length: 1 + Math.floor(rand() * 3) }, () =>
    rand() < 0.5 ? { kind: randomGlob(rand) } : { kind: randomGlob(rand), filter: randomFilter(rand) },
  );
  return agentRecord(`agent-${String(n).padStart(2, '0')}`, triggers, {
    workspaceId: pick(rand, WORKSPACES),
    // A few disabled agents must never match.
    enabled: rand() >= 0.1,
  });
}

function randomFact(rand: Rand, n: number): { workspaceId: string; fact: Fact } {
  const kind = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(rand, SEGMENTS)).join('.');
  const payload: Fact['payload'] = {};
  if (rand() < 0.8) payload.n = Math.floor(rand() * 4);
  if (rand() < 0.8) payload.s = pick(rand, ['x', 'y', 'z']);
  const actor = rand() < 0.5 ? { actor: { type: 'user' as const, id: 'u-1' } } : {};
  const fact = factOf(kind, payload, { seq: n + 1, subject: { type: pick(rand, ['build', 'deploy']), id: `s-${n}` }, ...actor });
  return { workspaceId: pick(rand, WORKSPACES), fact };
}

describe('AgentIndex against brute force', () => {
  it('matches exactly the (agent, fact) pairs of an evaluation of every agent against every fact', () => {
    const rand = prng(20261129);
    const agents = Array.from({ length: 50 }, (_, n) => randomAgent(rand, n));
    const facts = Array.from({ length: 5_000 }, (_, n) => randomFact(rand, n));
    // Order the upserts differently from the ids, so that nothing depends on insertion order.
    const index = new AgentIndex([...agents].reverse());

    // The reference: every agent × every fact, with its own compiled filters and the plain glob matcher.
    const reference = agents.map((agent) => ({
      agent,
      triggers: agent.spec.triggers.map((t) => ({
        glob: t.kind,
        filter: t.filter === undefined ? undefined : compileFilter(t.filter),
      })),
    }));
    const referenceById = new Map(reference.map((r) => [r.agent.agentId, r]));
    const expected = new Set<string>();
    const actual = new Set<string>();
    const problems: string[] = [];
    facts.forEach(({ workspaceId, fact }, n) => {
      for (const { agent, triggers } of reference) {
        if (!agent.enabled || agent.workspaceId !== workspaceId) continue;
        if (triggers.some((t) => matchesKindGlob(t.glob, fact.kind) && (t.filter === undefined || t.filter(fact)))) {
          expected.add(`${agent.agentId}|${n}`);
        }
      }
      for (const { agent, triggerIndex } of index.match(workspaceId, fact)) {
        const key = `${agent.agentId}|${n}`;
        // Each agent at most once per fact, naming a trigger that really matches it.
        const t = referenceById.get(agent.agentId)?.triggers[triggerIndex];
        const triggerMatches = t !== undefined && matchesKindGlob(t.glob, fact.kind) && (t.filter === undefined || t.filter(fact));
        if (actual.has(key) || !triggerMatches) problems.push(`${key} trigger ${triggerIndex}`);
        actual.add(key);
      }
    });

    // Problems are collected rather than asserted in the loop: 24,000 expect() calls would dominate the run time.
    expect(problems).toEqual([]);
    expect([...actual].sort()).toEqual([...expected].sort());
    // Guard against a vacuous pass: every shape of glob the index buckets differently occurs,
    const shapes = new Set(
      agents.flatMap((a) => a.spec.triggers).map(({ kind }) => {
        const wild = (segment: string | undefined) => segment === '*' || segment === '**';
        const segments = kind.split('.');
        if (!segments.some(wild)) return 'exact';
        return wild(segments[0]) ? (wild(segments.at(-1)) ? 'wildcard' : 'last') : 'first';
      }),
    );
    expect([...shapes].sort()).toEqual(['exact', 'first', 'last', 'wildcard']);
    // and a good share of pairs match, and many do not.
    const possible = facts.length * agents.length;
    expect(expected.size).toBeGreaterThan(possible * 0.05);
    expect(expected.size).toBeLessThan(possible * 0.5);
  });
});
