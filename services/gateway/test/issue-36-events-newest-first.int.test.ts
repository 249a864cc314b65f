import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * Issue 36 §8 (the events list was oldest first): `GET /events?order=desc`
 * answers newest first and pages back with `before=<nextCursor>`, down to an
 * empty page; `after` still bounds it below and a kind glob still filters;
 * bad values are 400s. Real gateway and event-log processes.
 */
describe('issue 36: events newest first, paged back with before', () => {
  let platform: TestPlatform;
  let api: ReturnType<typeof apiClient>;
  const base = '/v1/workspaces/acme/events';
  const seqs = (body: { events: Array<{ seq: number }> }) => body.events.map((event) => event.seq);

  beforeAll(async () => {
    platform = await startTestPlatform();
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    for (let n = 1; n <= 5; n++) {
      expect((await api('POST', base, { kind: n % 2 ? 'deploy.finished' : 'build.finished', subject: { type: 'release', id: `r${n}` }, payload: { n } })).status).toBe(202);
    }
    await waitFor(async () => ((await api('GET', `${base}?kind=*.finished`)).body.events.length === 5 ? true : undefined), { what: 'five facts stored' });
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it('pages newest first with before, to an empty last page', async () => {
    const all = seqs((await api('GET', `${base}?kind=*.finished`)).body);
    const first = await api('GET', `${base}?kind=*.finished&order=desc&limit=2`);
    expect(first.status).toBe(200);
    expect(seqs(first.body)).toEqual([all[4], all[3]]);
    expect(first.body.nextCursor).toBe(all[3]);
    const second = await api('GET', `${base}?kind=*.finished&order=desc&limit=2&before=${first.body.nextCursor}`);
    expect(seqs(second.body)).toEqual([all[2], all[1]]);
    const third = await api('GET', `${base}?kind=*.finished&order=desc&limit=2&before=${second.body.nextCursor}`);
    expect(seqs(third.body)).toEqual([all[0]]);
    const last = await api('GET', `${base}?kind=*.finished&order=desc&limit=2&before=${third.body.nextCursor}`);
    expect(last.body).toEqual({ events: [], nextCursor: third.body.nextCursor });
  });

  it('filters by kind and bounds by after; oldest first stays the default', async () => {
    const deploys = await api('GET', `${base}?kind=deploy.*&order=desc`);
    expect(deploys.body.events.map((event: { payload: { n: number } }) => event.payload.n)).toEqual([5, 3, 1]);
    const all = seqs((await api('GET', `${base}?kind=*.finished`)).body);
    expect(seqs((await api('GET', `${base}?kind=*.finished&order=desc&after=${all[2]}`)).body)).toEqual([all[4], all[3]]);
    expect(all).toEqual([...all].sort((a, b) => a - b));
  });

  it('refuses bad values with 400 VALIDATION_FAILED', async () => {
    for (const query of ['order=sideways', 'order=desc&before=0', 'order=desc&before=x', 'before=-1']) {
      const refused = await api('GET', `${base}?${query}`);
      expect([query, refused.status, refused.body.error.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
    }
  });
});
