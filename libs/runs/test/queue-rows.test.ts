import { parseClaimed, parseEnded } from '../src';

/** What the queue's SQL functions return is parsed at the adapter (issue 33 §3): a shape it does not know fails there, by function name. */
describe('the run queue rows', () => {
  const ref = { id: 'r1', workspace_id: 'w1', slug: 'acme', agent_id: 'a1', agent_version: 3, status: 'running', event_id: null, depth: 1 };
  const started = {
    ...ref,
    origin: { type: 'manual', input: 'go', userId: '00000000-0000-7000-8000-000000000000' },
    session_id: 's1',
    transcript_seq: null,
    continued: false,
    fact_row: null,
    stop_requested: false,
    paused: true,
    lease_lapses: 0,
  };

  it('maps a claim: its started runs with context and stop reason, its lost runs', () => {
    const claimed = parseClaimed({ started: [started], lost: [{ ...ref, status: 'failed' }] }, 'run_queue_claim');
    expect(claimed.started[0]).toMatchObject({ id: 'r1', workspaceSlug: 'acme', agentVersion: 3, stop: 'agents_paused', context: { sessionId: 's1', transcriptSeq: 0, fact: null } });
    expect(claimed.lost).toEqual([{ id: 'r1', workspaceId: 'w1', workspaceSlug: 'acme', agentId: 'a1', agentVersion: 3, status: 'failed', eventId: null, depth: 1 }]);
  });

  it('refuses a row the function no longer returns as the reader expects, naming the function', () => {
    expect(() => parseClaimed({ started: [], lost: [{ ...ref, agent_version: '3' }] }, 'run_queue_claim_lane')).toThrow(/^run_queue_claim_lane returned a value libs\/runs cannot read: lost\.0\.agent_version/);
    expect(() => parseClaimed({ started: [{ ...started, surprise: 1 }], lost: [] }, 'run_queue_claim')).toThrow('run_queue_claim returned');
    expect(() => parseEnded({ started: [], lost: [] }, 'run_queue_end')).toThrow('run_queue_end returned a value libs/runs cannot read: ended');
    expect(() => parseClaimed(undefined, 'run_queue_claim')).toThrow('run_queue_claim returned');
  });

  it('refuses a started run whose origin is not a run origin', () => {
    expect(() => parseClaimed({ started: [{ ...started, origin: { type: 'nope' } }], lost: [] }, 'run_queue_claim')).toThrow();
  });
});
