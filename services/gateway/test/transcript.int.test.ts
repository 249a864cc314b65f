import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { TranscriptResponseSchema } from '@switchyard/contracts';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { insertRun, scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;

/**
 * The transcript read API over real HTTP against the real gateway. No runner
 * runs here: entries are inserted with SQL as the runner would write them, one
 * of each type with the `content` shapes of docs/decisions/0011.
 */
describe('run transcript API', () => {
  let platform: TestPlatform;
  let viewer: Api;
  let other: Api;
  let pg: Client;
  let acmeId: string;
  let otherId: string;
  let runId: string;
  let sibling: string;
  let quiet: string;
  let theirs: string;
  const sessionId = randomUUID();
  const ws = '/v1/workspaces/acme';

  const contents: Array<[string, Record<string, unknown>]> = [
    ['system', { text: 'You triage failed builds.' }],
    ['user', { text: 'build.failed on main' }],
    ['assistant', { text: '', toolCalls: [{ id: 'c1', name: 'get_event', arguments: { id: 'e1' } }], usage: { inputTokens: 120, outputTokens: 14 }, costUsd: 0.00031 }],
    ['tool', { toolCallId: 'c1', name: 'get_event', arguments: { id: 'e1' }, ok: true, result: { kind: 'build.failed' }, durationMs: 12 }],
    ['user', { text: 'look at the linker error first', from: { type: 'user', userId: randomUUID(), name: 'Ada' } }],
    ['tool', { toolCallId: 'c2', name: 'fetch_log', arguments: {}, ok: false, error: { code: 'MCP_TIMEOUT', message: 'timed out' }, durationMs: 5000 }],
    ['notice', { code: 'mcp_server_failed', message: 'server ci-logs did not connect' }],
  ];

  beforeAll(async () => {
    platform = await startTestPlatform();
    const admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const ids = (await pg.query(`SELECT slug, id FROM workspaces`)).rows;
    acmeId = ids.find((r) => r.slug === 'acme').id;
    otherId = ids.find((r) => r.slug === 'other').id;
    const agentId = (await admin('POST', `${ws}/agents`, scriptedAgent('triage'))).body.id;
    const theirAgent = (await other('POST', '/v1/workspaces/other/agents', scriptedAgent('theirs'))).body.id;
    runId = await insertRun(pg, { workspaceId: acmeId, agentId, status: 'running', sessionId });
    // A second run in the same session: its entries share the session's seq but are not this run's.
    sibling = await insertRun(pg, { workspaceId: acmeId, agentId, status: 'queued', sessionId });
    quiet = await insertRun(pg, { workspaceId: acmeId, agentId, status: 'queued' });
    theirs = await insertRun(pg, { workspaceId: otherId, agentId: theirAgent, status: 'completed' });
    for (const [i, [type, content]] of contents.entries()) await insertEntry(acmeId, sessionId, i + 1, runId, type, content);
    await insertEntry(acmeId, sessionId, contents.length + 1, sibling, 'system', { text: 'sibling' });
    await insertEntry(otherId, randomUUID(), 1, theirs, 'system', { text: 'theirs' });
  });
  afterAll(async () => {
    await pg.end();
    await platform.stop();
  });

  async function insertEntry(workspaceId: string, session: string, seq: number, run: string, type: string, content: unknown) {
    await pg.query(
      `INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content, at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [session, seq, workspaceId, run, type, JSON.stringify(content), new Date(Date.UTC(2026, 0, 1, 0, 0, seq))],
    );
  }
  const seqs = (body: { entries: Array<{ seq: number }> }) => body.entries.map((entry) => entry.seq);

  it("reads the run's entries in seq order with their content as written, and only this run's", async () => {
    const page = await viewer('GET', `${ws}/runs/${runId}/transcript`);
    expect(page.status).toBe(200);
    expect(TranscriptResponseSchema.parse(page.body)).toEqual(page.body);
    expect(page.body.next).toBeNull();
    expect(page.body.entries).toEqual(
      contents.map(([type, content], i) => ({ seq: i + 1, runId, type, content, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i + 1)).toISOString() })),
    );
    const siblingPage = await viewer('GET', `${ws}/runs/${sibling}/transcript`);
    expect(siblingPage.body).toEqual({ entries: [expect.objectContaining({ seq: 8, runId: sibling, content: { text: 'sibling' } })], next: null });
  });

  it('pages with after and limit: next is the last seq of a full page, null after the last page', async () => {
    const first = await viewer('GET', `${ws}/runs/${runId}/transcript?limit=3`);
    expect([seqs(first.body), first.body.next]).toEqual([[1, 2, 3], 3]);
    const second = await viewer('GET', `${ws}/runs/${runId}/transcript?after=3&limit=3`);
    expect([seqs(second.body), second.body.next]).toEqual([[4, 5, 6], 6]);
    const third = await viewer('GET', `${ws}/runs/${runId}/transcript?after=6&limit=3`);
    expect([seqs(third.body), third.body.next]).toEqual([[7], null]);
    // A page that ends exactly at the last entry still says next; the page after it is empty.
    const exact = await viewer('GET', `${ws}/runs/${runId}/transcript?after=4&limit=3`);
    expect([seqs(exact.body), exact.body.next]).toEqual([[5, 6, 7], 7]);
    expect((await viewer('GET', `${ws}/runs/${runId}/transcript?after=7`)).body).toEqual({ entries: [], next: null });
  });

  it('answers an empty transcript for a run that has written nothing yet', async () => {
    expect((await viewer('GET', `${ws}/runs/${quiet}/transcript`)).body).toEqual({ entries: [], next: null });
  });

  it.each([
    ['an unknown run', () => viewer('GET', `${ws}/runs/${randomUUID()}/transcript`), 404, 'RUN_NOT_FOUND'],
    ["another workspace's run", () => viewer('GET', `${ws}/runs/${theirs}/transcript`), 404, 'RUN_NOT_FOUND'],
    ['a run id that is not a UUID', () => viewer('GET', `${ws}/runs/nope/transcript`), 400, 'VALIDATION_FAILED'],
    ['limit 0', () => viewer('GET', `${ws}/runs/${runId}/transcript?limit=0`), 400, 'VALIDATION_FAILED'],
    ['limit over 500', () => viewer('GET', `${ws}/runs/${runId}/transcript?limit=501`), 400, 'VALIDATION_FAILED'],
    ['a negative after', () => viewer('GET', `${ws}/runs/${runId}/transcript?after=-1`), 400, 'VALIDATION_FAILED'],
    ['a non-numeric after', () => viewer('GET', `${ws}/runs/${runId}/transcript?after=abc`), 400, 'VALIDATION_FAILED'],
    ['an unknown query parameter', () => viewer('GET', `${ws}/runs/${runId}/transcript?since=1`), 400, 'VALIDATION_FAILED'],
    ['no token', () => apiClient(platform.gatewayUrl)('GET', `${ws}/runs/${runId}/transcript`), 401, 'UNAUTHENTICATED'],
    ["another workspace's token", () => other('GET', `${ws}/runs/${runId}/transcript`), 403, 'WORKSPACE_FORBIDDEN'],
  ])('refuses %s', async (_what, call, status, code) => {
    const response = await call();
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(JSON.stringify(response.body)).not.toContain('You triage');
  });

  it('holds the transcript append-only: an UPDATE of a row is refused by the database', async () => {
    await expect(pg.query(`UPDATE transcript_entries SET content = '{"text":"rewritten"}' WHERE run_id = $1 AND seq = 1`, [runId])).rejects.toThrow(
      /append-only/,
    );
    expect((await viewer('GET', `${ws}/runs/${runId}/transcript?limit=1`)).body.entries[0].content).toEqual({ text: 'You triage failed builds.' });
  });
});
