import { MAX_RUN_CONTINUATIONS, RUN_FAILURE_CODES, type AgentSpec } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logging';
import type { Executor, StartedRun } from '../src/ports';
import { executeRun } from '../src/run-execution';

const log = createLogger({ service: 'test', level: 'silent' });

const started = (leaseLapses: number): StartedRun => ({
  id: 'run-1',
  workspaceId: 'ws',
  workspaceSlug: 'ws',
  agentId: 'agent',
  agentVersion: 1,
  status: 'running',
  eventId: null,
  depth: 0,
  context: { origin: { type: 'manual', input: 'go', userId: 'u' } as StartedRun['context']['origin'], sessionId: 'run-1', fact: null, transcriptSeq: 0, continued: true },
  stop: null,
  leaseLapses,
});

/**
 * Issue 33 leftover (decision 0051): a run whose lease lapsed more than
 * MAX_RUN_CONTINUATIONS times is failed `continuation_limit` when next
 * started, without executing; up to the cap it is continued as before.
 */
describe('issue 33: the cap on continuations of a run', () => {
  const executorCalls: string[] = [];
  const executor: Executor = {
    execute: async (run) => {
      executorCalls.push(run.id);
      return { status: 'completed', outcome: { summary: 'done' } } as Awaited<ReturnType<Executor['execute']>>;
    },
  };
  const deps = { executor, reads: { stopReason: async () => null }, log };
  const spec = {} as AgentSpec;

  it('continues a run whose lease lapsed MAX_RUN_CONTINUATIONS times', async () => {
    executorCalls.length = 0;
    const ending = await executeRun(deps, started(MAX_RUN_CONTINUATIONS), spec, new AbortController().signal);
    expect(executorCalls).toEqual(['run-1']);
    expect(ending).toMatchObject({ status: 'completed' });
  });

  it('fails a run whose lease lapsed once more, continuation_limit, without executing it', async () => {
    executorCalls.length = 0;
    const ending = await executeRun(deps, started(MAX_RUN_CONTINUATIONS + 1), spec, new AbortController().signal);
    expect(executorCalls).toEqual([]);
    expect(ending).toMatchObject({ status: 'failed', reason: RUN_FAILURE_CODES.continuationLimit, error: { code: 'continuation_limit' } });
  });
});
