import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * Issue 13, item 8: a message accepted for a session just before its run ends
 * is delivered or refused with 409 — never accepted and dropped. Real gateway,
 * event-log and runner processes: messages are posted while runs take their
 * last step, many times; every `202` must show up in the run's transcript
 * (read by the model, or, for a run that ends otherwise, as a notice).
 */
jest.setTimeout(180_000);

const WS = 'late';

describe('issue 13: a late message is delivered or refused (real processes)', () => {
  let platform: TestPlatform;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    platform = await startTestPlatform({ runners: 1 });
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace(WS));
  });

  afterAll(async () => platform?.stop());

  const createAgent = async (name: string, stepMs: number, script: Array<Record<string, unknown>>) => {
    const created = await api('POST', `/v1/workspaces/${WS}/agents`, {
      name,
      instructions: 'Listen.',
      model: { provider: 'scripted', name: 'script', params: { stepMs } },
      script,
      triggers: [{ kind: 'never.happens' }],
      flow: { concurrency: 1 },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  const runNow = async (runId: string) => (await api('GET', `/v1/workspaces/${WS}/runs/${runId}`)).body;

  const ended = async (runId: string) => {
    let run: any;
    await waitFor(
      async () => {
        run = await runNow(runId);
        return ['completed', 'failed', 'cancelled'].includes(run.status);
      },
      { timeoutMs: 60_000, intervalMs: 25, what: `run ${runId} ended` },
    );
    return run;
  };

  const transcript = async (runId: string) => (await api('GET', `/v1/workspaces/${WS}/runs/${runId}/transcript?limit=500`)).body.entries as any[];

  const postMessage = (sessionId: string, content: string) => api('POST', `/v1/workspaces/${WS}/sessions/${sessionId}/messages`, { content });

  it('messages posted while runs take their last step: each 202 reaches the model (one more step), the rest are 409 — 40 runs', async () => {
    const agentId = await createAgent('listener', 60, [{ say: 'done' }]);
    let delivered = 0;
    let lateDelivered = 0;
    let refused = 0;
    for (let i = 0; i < 40; i++) {
      const started = await api('POST', `/v1/workspaces/${WS}/agents/${agentId}/runs`, { input: `run ${i}` });
      expect(started.status).toBe(201);
      const { id: runId, sessionId } = started.body;
      // Spread over the run's life: queued, its one model step, its ending.
      await new Promise((resolve) => setTimeout(resolve, (i * 7) % 160));
      const posted = await postMessage(sessionId, `message ${i}`);
      expect([202, 409]).toContain(posted.status);
      const run = await ended(runId);
      expect(run.status).toBe('completed');
      if (posted.status === 409) {
        expect(posted.body.error.code).toBe('SESSION_NOT_ACTIVE');
        refused += 1;
        continue;
      }
      const entries = await transcript(runId);
      const read = entries.find((entry) => entry.type === 'user' && entry.content.envelopeId === posted.body.id);
      expect(read?.content.text).toBe(`message ${i}`);
      delivered += 1;
      // Posted after the run's step boundary: the model saw it in a step taken for it.
      const firstAnswer = entries.find((entry) => entry.type === 'assistant');
      if (read.seq > firstAnswer.seq) {
        lateDelivered += 1;
        expect(entries.at(-1)).toMatchObject({ type: 'assistant' });
        expect(run.outcome.turns).toBe(2);
      }
    }
    // The race was run: some messages came during the last step, and were read.
    expect(delivered).toBeGreaterThan(0);
    expect(lateDelivered).toBeGreaterThan(0);
    expect(delivered + refused).toBe(40);
  });

  it('a run cancelled by a stop request records the message it never read as a notice; after its end, posts are 409', async () => {
    const agentId = await createAgent('stopped', 400, [{ say: 'one' }, { say: 'two' }, { say: 'three' }]);
    const started = await api('POST', `/v1/workspaces/${WS}/agents/${agentId}/runs`, { input: 'work' });
    const { id: runId, sessionId } = started.body;
    await waitFor(async () => (await runNow(runId)).status === 'running', { timeoutMs: 30_000, intervalMs: 20, what: 'the run running' });
    expect((await api('POST', `/v1/workspaces/${WS}/runs/${runId}/stop`)).status).toBe(202);
    const posted = await postMessage(sessionId, 'are you still there?');
    expect(posted.status).toBe(202);
    const run = await ended(runId);
    expect(run).toMatchObject({ status: 'cancelled', reason: 'stopped' });
    const notice = (await transcript(runId)).find((entry) => entry.type === 'notice' && entry.content.code === 'mailbox_unread');
    expect(notice?.content.messages).toEqual([expect.objectContaining({ envelopeId: posted.body.id, content: 'are you still there?' })]);
    const after = await postMessage(sessionId, 'hello?');
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('SESSION_NOT_ACTIVE');
  });
});
