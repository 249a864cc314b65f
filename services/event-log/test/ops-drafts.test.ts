import { MAX_OPS_RUNS_LISTED, OPS_FACT_PAYLOAD_SCHEMAS } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import {
  backlogDraft,
  deadLetterDraft,
  endpointOf,
  formatDuration,
  modelErrorDrafts,
  recoveredBelow,
  recoveryDraft,
  runnerLostDraft,
} from '../src/ops/ops-drafts';
import type { ModelFailureRow, OpsDraft } from '../src/ops/ops-ports';

/** Issue 36: what each observation becomes as an ops fact, and that every payload is what its contract says. */

const acme = { id: newId(), slug: 'acme' };
const globex = { id: newId(), slug: 'globex' };
const WINDOW = 300_000;
const parses = (draft: OpsDraft) => OPS_FACT_PAYLOAD_SCHEMAS[draft.kind].parse(draft.payload);

describe('ops drafts', () => {
  it('runner lost: keyed by the runner, its runs listed up to the cap with the full count, a long name kept whole in the payload', () => {
    const runs = Array.from({ length: MAX_OPS_RUNS_LISTED + 5 }, (_, i) => ({ runId: newId(), agentId: newId(), lane: 'agent:x', lapsed: i < 2 }));
    const runner = `r-${'€'.repeat(400)}`;
    const draft = runnerLostDraft({ workspace: acme, runner, noteIds: ['1'], lapsedAt: new Date(0), runs }, WINDOW);
    expect(parses(draft)).toMatchObject({ runner, runCount: MAX_OPS_RUNS_LISTED + 5, lapsedAt: '1970-01-01T00:00:00.000Z' });
    expect(draft.payload.runs).toHaveLength(MAX_OPS_RUNS_LISTED);
    expect(draft).toMatchObject({ key: runner, subjectId: `runner:${runner}` });
    expect(draft.payload.summary.length).toBeLessThanOrEqual(500);
    expect(draft.payload.summary).toContain('2 runs in flight lapsed, 103 more still leased');
  });

  it('backlog and recovery: keyed by the lane; recovery below half the threshold, never below 1', () => {
    const lane = { workspace: acme, lane: 'agent:a', agentId: newId(), depth: 150, oldestQueuedAt: new Date(0), oldestAgeMs: 42_400.6 };
    const backlog = backlogDraft(lane, 100, WINDOW);
    expect(parses(backlog)).toMatchObject({ depth: 150, threshold: 100, oldestAgeMs: 42_401 });
    expect(backlog.payload.summary).toBe('lane agent:a has 150 queued runs (threshold 100); the oldest has waited 42 s');
    expect([1, 2, 3, 100, 101].map(recoveredBelow)).toEqual([1, 1, 2, 50, 51]);
    const recovery = recoveryDraft({ workspace: acme, lane: 'agent:a', agentId: null, depth: 3, since: new Date(0) }, 100, WINDOW, new Date(600_000));
    expect(parses(recovery)).toMatchObject({ agentId: null, recoveredBelow: 50, backloggedSince: '1970-01-01T00:00:00.000Z' });
    expect(recovery.key).toBe(backlog.key);
    expect(recovery.payload.summary).toContain('after 10 min backlogged');
  });

  it('dead letters: keyed by stream and group, the newest letter’s error cut', () => {
    const draft = deadLetterDraft(
      { workspace: acme, stream: 'sy:facts', group: 'notifier', newLetters: 1, latest: { id: '7', entryId: '1-0', error: 'e'.repeat(5000), failedAt: new Date(0) } },
      WINDOW,
    );
    parses(draft);
    expect(draft.payload.latest.error).toHaveLength(500);
    expect(draft).toMatchObject({ key: 'sy:facts/notifier', subjectId: 'dead-letters:sy:facts/notifier' });
    expect(draft.payload.summary.startsWith('1 entry of this workspace dead-lettered on sy:facts by group notifier in the last 5 min')).toBe(true);
  });

  it('model errors: per workspace, provider and endpoint origin (never credentials or path), counted by code and agent, at the minimum', () => {
    const agentA = newId();
    const agentB = newId();
    const row = (over: Partial<ModelFailureRow>): ModelFailureRow => ({
      workspace: acme,
      agentId: agentA,
      code: 'model_rate_limited',
      provider: 'openai',
      baseUrl: null,
      failures: 1,
      lastAt: new Date(0),
      runIds: [newId()],
      ...over,
    });
    const rows = [
      row({ failures: 2 }),
      row({ agentId: agentB, code: 'model_timeout', failures: 3, lastAt: new Date(5) }),
      row({ baseUrl: 'http://u:p@10.0.0.5:8000/v1', code: 'model_unavailable' }),
      row({ baseUrl: 'http://10.0.0.5:8000/other', code: 'model_unavailable' }),
      row({ workspace: globex, failures: 1 }),
      row({ provider: null, failures: 4 }),
    ];
    const drafts = modelErrorDrafts(rows, 2, WINDOW);
    drafts.forEach(parses);
    expect(drafts.map((d) => `${d.workspace.slug} ${d.key} ${d.payload.failures}`)).toEqual(['acme openai 5', 'acme openai@http://10.0.0.5:8000 2', 'acme unknown 4']);
    expect(drafts[0]!.payload).toMatchObject({ byCode: { model_rate_limited: 2, model_timeout: 3 }, agents: [{ agentId: agentB, failures: 3 }, { agentId: agentA, failures: 2 }] });
    expect(drafts[0]!.payload.sampleRunIds[0]).toBe(rows[1]!.runIds[0]);
    expect(JSON.stringify(drafts)).not.toContain('u:p');
    expect(modelErrorDrafts(rows, 6, WINDOW)).toEqual([]);
  });

  it('endpoints and durations as people read them', () => {
    expect(endpointOf(null)).toBeNull();
    expect(endpointOf('https://a:b@x.example:9/v1?k=1')).toBe('https://x.example:9');
    expect(endpointOf('not a url')).toBe('invalid');
    expect([0, 59_400, 119_999, 120_000, 7_199_999, 7_200_000].map(formatDuration)).toEqual(['0 s', '59 s', '120 s', '2 min', '120 min', '2 h']);
  });
});
