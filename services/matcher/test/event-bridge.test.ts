import { TeammateWatchSchema } from '@switchyard/contracts';
import { ActivationGuards } from '../src/activation-guards';
import { AgentIndex, type TeammateRecord } from '../src/agent-index';
import { decideDelivery, factContent, type BridgeHistory } from '../src/event-bridge';
import { pairKey } from '../src/ports';
import { factOf } from './agent-fixtures';

/** A live teammate of workspace `ws-1` with this watch (validated like the API does). */
function teammate(teammateId: string, watch: unknown[], fields: Partial<TeammateRecord> = {}): TeammateRecord {
  return { teammateId, workspaceId: 'ws-1', name: teammateId, agentId: 'agent-1', sessionId: `session-${teammateId}`, watch: TeammateWatchSchema.array().parse(watch), ...fields };
}

const noHistory = (): BridgeHistory => ({ delivered: new Map(), lastOfKind: new Map(), stopped: new Set(), turnOf: new Map() });

describe('the index learns teammates’ watches', () => {
  it('matches kind globs and filters per workspace, each teammate once with its lowest entry', () => {
    const index = new AgentIndex();
    index.upsertTeammate(teammate('ada', [{ kind: 'build.*', filter: { path: 'payload.branch', op: 'eq', value: 'main' } }, { kind: '**.failed', cooldownMs: 5000 }]));
    index.upsertTeammate(teammate('bob', [{ kind: 'task.created' }]));
    index.upsertTeammate(teammate('eve', [{ kind: 'build.*' }], { workspaceId: 'ws-2' }));
    const matched = (kind: string, payload = {}, ws = 'ws-1') => index.matchTeammates(ws, factOf(kind, payload)).map((m) => [m.teammate.teammateId, m.watchIndex, m.cooldownMs]);
    expect(matched('build.failed', { branch: 'main' })).toEqual([['ada', 0, 0]]);
    expect(matched('build.failed', { branch: 'dev' })).toEqual([['ada', 1, 5000]]);
    expect(matched('build.started', { branch: 'dev' })).toEqual([]);
    expect(matched('task.created')).toEqual([['bob', 0, 0]]);
    expect(matched('deploy.started')).toEqual([]);
    // Another workspace's teammate never matches this workspace's facts, nor the reverse.
    expect(matched('build.started', {}, 'ws-2')).toEqual([['eve', 0, 0]]);
    expect(index.matchTeammates('ws-2', factOf('task.created'))).toEqual([]);
    // Agents and teammates are apart: no agent is matched by a watch.
    expect(index.match('ws-1', factOf('task.created'))).toEqual([]);
  });

  it('a stopped (removed) teammate matches nothing; a re-spawn replaces its watch; a teammate watching nothing is not indexed', () => {
    const index = new AgentIndex();
    index.upsertTeammate(teammate('ada', [{ kind: 'build.*' }]));
    index.upsertTeammate(teammate('ada', [{ kind: 'deploy.*' }]));
    expect(index.matchTeammates('ws-1', factOf('build.failed'))).toEqual([]);
    expect(index.matchTeammates('ws-1', factOf('deploy.failed'))).toHaveLength(1);
    expect(index.removeTeammate('ada')).toBe(true);
    expect(index.matchTeammates('ws-1', factOf('deploy.failed'))).toEqual([]);
    expect(index.teammateCount).toBe(0);
    index.upsertTeammate(teammate('quiet', []));
    expect(index.teammateCount).toBe(0);
    expect(index.removeTeammate('quiet')).toBe(false);
  });
});

describe('decideDelivery: the agents’ guards, with the teammate as the identity', () => {
  const guards = new ActivationGuards({ maxCausationDepth: 5 });
  const index = new AgentIndex([]);
  // Two teammates of the same agent: self-cause is by teammate (its turns), not by agent.
  index.upsertTeammate(teammate('ada', [{ kind: 'task.created' }]));
  index.upsertTeammate(teammate('bob', [{ kind: 'task.created', cooldownMs: 60_000 }]));
  const candidateFor = (name: string, fact = factOf('task.created'), paused = false) => {
    const match = index.matchTeammates('ws-1', fact).find((m) => m.teammate.teammateId === name)!;
    return { match, fact, workspaceId: 'ws-1', paused };
  };
  const causedByTurnOf = (runId: string, depth = 1) => factOf('task.created', {}, { causedBy: { runId, agentId: 'agent-1', depth } });

  it('a fact caused by its own turn is self-caused; by another teammate’s turn of the same agent it is delivered', () => {
    const history = noHistory();
    history.turnOf.set('run-of-ada', 'ada');
    history.turnOf.set('run-of-bob', 'bob');
    expect(decideDelivery(guards, candidateFor('ada', causedByTurnOf('run-of-ada')), history, 1000)).toEqual({ action: 'skip', reason: 'self_caused' });
    expect(decideDelivery(guards, candidateFor('ada', causedByTurnOf('run-of-bob')), history, 1000)).toEqual({ action: 'activate' });
    // A run that is no teammate's turn (an agent's triggered run) is another's cause too.
    expect(decideDelivery(guards, candidateFor('ada', causedByTurnOf('some-run')), history, 1000)).toEqual({ action: 'activate' });
    expect(decideDelivery(guards, candidateFor('ada'), history, 1000)).toEqual({ action: 'activate' });
  });

  it('the depth cap, the kill switch and a stop since the index matched skip it', () => {
    const history = noHistory();
    expect(decideDelivery(guards, candidateFor('ada', causedByTurnOf('some-run', 5)), history, 1000)).toEqual({ action: 'skip', reason: 'depth_exceeded' });
    expect(decideDelivery(guards, candidateFor('ada', causedByTurnOf('some-run', 4)), history, 1000)).toEqual({ action: 'activate' });
    expect(decideDelivery(guards, candidateFor('ada', factOf('task.created'), true), history, 1000)).toEqual({ action: 'skip', reason: 'paused' });
    history.stopped.add('ada');
    expect(decideDelivery(guards, candidateFor('ada'), history, 1000)).toEqual({ action: 'skip', reason: 'disabled' });
  });

  it('the watch entry’s cooldown is per (teammate, kind), half-open', () => {
    const history = noHistory();
    history.lastOfKind.set(pairKey('bob', 'task.created'), 1000);
    history.lastOfKind.set(pairKey('ada', 'task.created'), 1000);
    expect(decideDelivery(guards, candidateFor('bob'), history, 1000 + 59_999)).toEqual({ action: 'skip', reason: 'cooldown' });
    expect(decideDelivery(guards, candidateFor('bob'), history, 1000 + 60_000)).toEqual({ action: 'activate' });
    // ada's entry has no cooldown.
    expect(decideDelivery(guards, candidateFor('ada'), history, 1001)).toEqual({ action: 'activate' });
  });
});

describe('factContent', () => {
  it('is the fact as JSON; a payload too large for a message is left out, said so', () => {
    const small = factOf('build.failed', { branch: 'main' });
    expect(JSON.parse(factContent(small))).toMatchObject({ id: small.id, kind: 'build.failed', payload: { branch: 'main' } });
    const large = factOf('build.failed', { log: 'x'.repeat(40_000) });
    const content = factContent(large);
    expect(content.length).toBeLessThan(1000);
    expect(JSON.parse(content)).toMatchObject({ id: large.id, kind: 'build.failed', payloadOmitted: 'larger than a message' });
  });
});
