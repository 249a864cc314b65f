import { AgentIndex, type TriggerMatch } from '../src/agent-index';
import { agentRecord, factOf } from './agent-fixtures';

const ids = (matches: TriggerMatch[]): string[] => matches.map((m) => m.agent.agentId);
const pairs = (matches: TriggerMatch[]): Array<[string, number]> => matches.map((m) => [m.agent.agentId, m.triggerIndex]);

describe('AgentIndex lookups by kind glob', () => {
  const index = new AgentIndex([
    agentRecord('exact', [{ kind: 'build.failed' }]),
    agentRecord('one-seg', [{ kind: 'build.*' }]),
    agentRecord('any-deep', [{ kind: 'build.**' }]),
    agentRecord('lead-star', [{ kind: '*.failed' }]),
    agentRecord('lead-deep', [{ kind: '**.failed' }]),
    agentRecord('everything', [{ kind: '**' }]),
    agentRecord('single', [{ kind: '*' }]),
    agentRecord('middle', [{ kind: 'build.**.failed' }]),
    agentRecord('both-wild', [{ kind: '*.run.**' }]),
  ]);

  const cases: Array<[string, string[]]> = [
    ['build.failed', ['any-deep', 'everything', 'exact', 'lead-deep', 'lead-star', 'middle', 'one-seg']],
    ['build', ['any-deep', 'everything', 'single']],
    ['build.x.failed', ['any-deep', 'everything', 'lead-deep', 'middle']],
    ['failed', ['everything', 'lead-deep', 'single']],
    ['deploy.failed', ['everything', 'lead-deep', 'lead-star']],
    ['agent.run.started', ['both-wild', 'everything']],
    ['builds.failed', ['everything', 'lead-deep', 'lead-star']],
  ];
  it.each(cases)('%s activates %j', (kind, expected) => {
    expect(ids(index.candidates('ws-1', kind))).toEqual(expected);
    expect(ids(index.match('ws-1', factOf(kind)))).toEqual(expected);
  });
});

describe('AgentIndex filters and triggers', () => {
  it('applies the filter of the trigger whose glob matched', () => {
    const index = new AgentIndex([
      agentRecord('failing', [{ kind: 'scorecard.*', filter: { path: 'payload.failures', op: 'gt', value: 0 } }]),
      agentRecord('plain', [{ kind: 'scorecard.completed' }]),
    ]);
    expect(ids(index.match('ws-1', factOf('scorecard.completed', { failures: 3 })))).toEqual(['failing', 'plain']);
    expect(ids(index.match('ws-1', factOf('scorecard.completed', { failures: 0 })))).toEqual(['plain']);
    expect(ids(index.match('ws-1', factOf('scorecard.completed')))).toEqual(['plain']);
    // candidates() does not evaluate filters: both triggers are returned for the kind.
    expect(ids(index.candidates('ws-1', 'scorecard.completed'))).toEqual(['failing', 'plain']);
  });

  it('returns an agent once when several of its triggers match, with the lowest matching trigger', () => {
    const index = new AgentIndex([
      agentRecord('multi', [
        { kind: 'build.failed', filter: { path: 'payload.branch', op: 'eq', value: 'main' } },
        { kind: 'build.*' },
        { kind: '**' },
        { kind: '*.failed' },
      ]),
    ]);
    expect(pairs(index.candidates('ws-1', 'build.failed'))).toEqual([['multi', 0], ['multi', 1], ['multi', 2], ['multi', 3]]);
    expect(pairs(index.match('ws-1', factOf('build.failed', { branch: 'main' })))).toEqual([['multi', 0]]);
    expect(pairs(index.match('ws-1', factOf('build.failed', { branch: 'dev' })))).toEqual([['multi', 1]]);
    expect(pairs(index.match('ws-1', factOf('deploy.failed')))).toEqual([['multi', 2]]);
  });

  it('does not match when no trigger filter passes', () => {
    const index = new AgentIndex([
      agentRecord('strict', [
        { kind: 'build.*', filter: { path: 'payload.n', op: 'eq', value: 1 } },
        { kind: '**', filter: { not: { path: 'payload.n', op: 'exists', value: false } } },
      ]),
    ]);
    expect(index.match('ws-1', factOf('build.failed'))).toEqual([]);
    expect(ids(index.match('ws-1', factOf('build.failed', { n: 2 })))).toEqual(['strict']);
  });
});

describe('AgentIndex reloads', () => {
  it('replaces every trigger of an agent on upsert', () => {
    const index = new AgentIndex([agentRecord('a', [{ kind: 'build.failed' }, { kind: '*.failed' }, { kind: '**' }])]);
    expect(index.upsert(agentRecord('a', [{ kind: 'deploy.*' }], { version: 2 }))).toBe('indexed');
    for (const kind of ['build.failed', 'x.failed', 'other']) expect(index.candidates('ws-1', kind)).toEqual([]);
    expect(pairs(index.candidates('ws-1', 'deploy.done'))).toEqual([['a', 0]]);
    expect(index.get('a')?.version).toBe(2);
    expect(index.size).toBe(1);
  });

  it('ignores an upsert older than the indexed version', () => {
    const index = new AgentIndex([agentRecord('a', [{ kind: 'new.kind' }], { version: 3 })]);
    expect(index.upsert(agentRecord('a', [{ kind: 'old.kind' }], { version: 2 }))).toBe('stale');
    expect(ids(index.candidates('ws-1', 'new.kind'))).toEqual(['a']);
    expect(index.candidates('ws-1', 'old.kind')).toEqual([]);
  });

  it('applies a pin of an older version (issue 32): staleness is judged by the latest version at the change', () => {
    const index = new AgentIndex([agentRecord('a', [{ kind: 'new.kind' }], { version: 3, latestVersion: 3 })]);
    // Pinned to version 1 while version 3 is the latest: indexed, version 1's triggers decide.
    expect(index.upsert(agentRecord('a', [{ kind: 'old.kind' }], { version: 1, latestVersion: 3 }))).toBe('indexed');
    expect(ids(index.candidates('ws-1', 'old.kind'))).toEqual(['a']);
    expect(index.get('a')?.version).toBe(1);
    // A reload read when version 2 was the latest comes too late.
    expect(index.upsert(agentRecord('a', [{ kind: 'new.kind' }], { version: 2, latestVersion: 2 }))).toBe('stale');
    expect(index.candidates('ws-1', 'new.kind')).toEqual([]);
  });

  it('applies an enable or disable of the same version (they make no new version)', () => {
    const index = new AgentIndex([agentRecord('a', [{ kind: 'k' }])]);
    expect(index.upsert(agentRecord('a', [{ kind: 'k' }], { enabled: false }))).toBe('disabled');
    expect(index.candidates('ws-1', 'k')).toEqual([]);
    expect(index.upsert(agentRecord('a', [{ kind: 'k' }]))).toBe('indexed');
    expect(ids(index.candidates('ws-1', 'k'))).toEqual(['a']);
  });

  it('does not index disabled agents', () => {
    const index = new AgentIndex([
      agentRecord('off', [{ kind: 'k' }, { kind: '**' }], { enabled: false }),
      agentRecord('on', [{ kind: 'k' }]),
    ]);
    expect(ids(index.match('ws-1', factOf('k')))).toEqual(['on']);
    expect(index.get('off')).toBeUndefined();
    expect(index.size).toBe(1);
  });

  it('removes an agent from every bucket', () => {
    const index = new AgentIndex([
      agentRecord('gone', [{ kind: 'build.failed' }, { kind: 'build.*' }, { kind: '*.failed' }, { kind: '**' }]),
      agentRecord('stays', [{ kind: 'build.failed' }]),
    ]);
    expect(index.remove('gone')).toBe(true);
    expect(index.remove('gone')).toBe(false);
    expect(ids(index.candidates('ws-1', 'build.failed'))).toEqual(['stays']);
    expect(index.candidates('ws-1', 'x.failed')).toEqual([]);
    // A removed agent is forgotten: any version may be indexed again.
    expect(index.upsert(agentRecord('gone', [{ kind: 'x.failed' }]))).toBe('indexed');
    expect(ids(index.candidates('ws-1', 'x.failed'))).toEqual(['gone']);
  });

  it('leaves the index as it was when a filter does not compile', () => {
    const index = new AgentIndex([agentRecord('a', [{ kind: 'k' }])]);
    const bad = agentRecord('a', [{ kind: 'k' }], { version: 2 }, true);
    const broken = { ...bad, spec: { ...bad.spec, triggers: [{ kind: 'other', filter: { path: 'nope', op: 'eq', value: 1 } }] } };
    expect(() => index.upsert(broken as typeof bad)).toThrow(/not a fact path/);
    expect(ids(index.candidates('ws-1', 'k'))).toEqual(['a']);
    expect(index.get('a')?.version).toBe(1);
  });
});

describe('AgentIndex workspaces', () => {
  it('keeps workspaces apart', () => {
    const index = new AgentIndex([
      agentRecord('one', [{ kind: '**' }], { workspaceId: 'ws-1' }),
      agentRecord('two', [{ kind: '**' }], { workspaceId: 'ws-2' }),
    ]);
    expect(ids(index.match('ws-1', factOf('k')))).toEqual(['one']);
    expect(ids(index.match('ws-2', factOf('k')))).toEqual(['two']);
    expect(index.match('ws-3', factOf('k'))).toEqual([]);
  });

  it('moves an agent whose record names another workspace', () => {
    const index = new AgentIndex([agentRecord('a', [{ kind: 'k' }], { workspaceId: 'ws-1' })]);
    index.upsert(agentRecord('a', [{ kind: 'k' }], { workspaceId: 'ws-2', version: 2 }));
    expect(index.candidates('ws-1', 'k')).toEqual([]);
    expect(ids(index.candidates('ws-2', 'k'))).toEqual(['a']);
    expect(index.size).toBe(1);
  });
});

describe('AgentIndex with many agents', () => {
  it('finds the 3 matching agents among 10,000 that do not match', () => {
    const records = [];
    for (let i = 0; i < 10_000; i++) {
      // Spread the non-matching agents over every bucket kind, including the one the fact's first segment selects.
      const triggers = [[{ kind: `noise.k${i}` }], [{ kind: `n${i}.*` }], [{ kind: `*.n${i}` }], [{ kind: `build.n${i}.**` }]][i % 4] as unknown[];
      records.push(agentRecord(`noise-${String(i).padStart(5, '0')}`, triggers, {}, true));
    }
    records.push(agentRecord('match-exact', [{ kind: 'build.failed' }]));
    records.push(agentRecord('match-first', [{ kind: 'build.*' }]));
    records.push(agentRecord('match-last', [{ kind: '*.failed' }]));
    const index = new AgentIndex(records);
    expect(index.size).toBe(10_003);
    expect(ids(index.candidates('ws-1', 'build.failed'))).toEqual(['match-exact', 'match-first', 'match-last']);
    expect(ids(index.match('ws-1', factOf('build.failed')))).toEqual(['match-exact', 'match-first', 'match-last']);
  });
});
