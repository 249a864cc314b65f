import { Client } from 'pg';
import { apiClient, postFactsConcurrently, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * Issue 2's durability guarantees, end to end over real processes: the gateway
 * and event-log(s) run as child processes on a database and Redis prefix of
 * this file's own.
 */
const FACTS = 10_000;
// The machines are 2 cores; 10,000 one-fact requests plus their retries take ~1 minute there.
jest.setTimeout(240_000);

async function rows(platform: TestPlatform): Promise<{ count: number; seqs: number[]; ids: Set<string> }> {
  const client = new Client({ connectionString: platform.db.url });
  await client.connect();
  try {
    const result = await client.query<{ id: string; seq: string }>('SELECT id::text, seq FROM platform_events ORDER BY seq');
    return { count: result.rowCount ?? 0, seqs: result.rows.map((r) => Number(r.seq)), ids: new Set(result.rows.map((r) => r.id)) };
  } finally {
    await client.end();
  }
}

async function publishedIds(platform: TestPlatform): Promise<Set<string>> {
  const ids = new Set<string>();
  let start = '-';
  for (;;) {
    const entries = await platform.redis.redis.xrange(`${platform.redis.prefix}:facts`, start, '+', 'COUNT', 5000);
    for (const [, fields] of entries) ids.add(JSON.parse(fields[1]!).fact.id);
    if (entries.length < 5000) return ids;
    start = `(${entries.at(-1)![0]}`;
  }
}

async function persistedCount(platform: TestPlatform): Promise<number> {
  return (await rows(platform)).count;
}

function expectDenseSeqs(seqs: number[]): void {
  expect(seqs).toHaveLength(FACTS);
  seqs.forEach((seq, index) => {
    if (seq !== index + 1) throw new Error(`seq ${seq} at position ${index}: not 1..${FACTS} strictly increasing`);
  });
}

describe('event-log durability (real processes, Redis, PostgreSQL)', () => {
  let platform: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.stop();
    platform = undefined;
  });

  it('stores 10,000 facts from 8 clients with 10% retried exactly once, in seq order, all published', async () => {
    platform = await startTestPlatform();
    const token = await platform.createWorkspace('load');
    const load = await postFactsConcurrently({ baseUrl: platform.gatewayUrl, workspace: 'load', token, count: FACTS, concurrency: 8 });
    expect(load.unexpected).toEqual([]);
    expect(load.retries).toBe(FACTS / 10);
    expect(load.retriesResolved).toBe(FACTS / 10);
    expect(new Set(load.ids).size).toBe(FACTS);

    await waitFor(async () => (await persistedCount(platform!)) >= FACTS, { timeoutMs: 120_000, what: 'all facts persisted' });
    const stored = await rows(platform);
    expect(stored.count).toBe(FACTS);
    expectDenseSeqs(stored.seqs);
    expect([...load.ids].every((id) => stored.ids.has(id))).toBe(true);
    const published = await waitFor(async () => {
      const ids = await publishedIds(platform!);
      return load.ids.every((id) => ids.has(id)) ? ids : undefined;
    }, { what: 'every id on facts' });
    expect(published.size).toBe(FACTS);
  });

  it('with two event-log processes, a reader paging by after=<seq> sees every fact exactly once', async () => {
    platform = await startTestPlatform({ eventLogs: 2 });
    const token = await platform.createWorkspace('pager');
    const api = apiClient(platform.gatewayUrl, token);
    const seen: Array<{ id: string; seq: number }> = [];
    let after = 0;
    // A page at a time, while the load runs, until every fact was seen.
    const reader = waitFor(
      async () => {
        const page = await api('GET', `/v1/workspaces/pager/events?after=${after}&limit=1000`);
        if (page.status !== 200) throw new Error(`events answered ${page.status}`);
        seen.push(...page.body.events.map((e: { id: string; seq: number }) => ({ id: e.id, seq: e.seq })));
        after = page.body.nextCursor;
        return seen.length >= FACTS;
      },
      { timeoutMs: 120_000, intervalMs: 5, what: `every fact read (seen ${seen.length})` },
    );
    const load = await postFactsConcurrently({ baseUrl: platform.gatewayUrl, workspace: 'pager', token, count: FACTS, concurrency: 8, batchSize: 20 });
    expect(load.unexpected).toEqual([]);
    await reader;

    expect(seen).toHaveLength(FACTS);
    expect(new Set(seen.map((f) => f.id)).size).toBe(FACTS);
    expectDenseSeqs(seen.map((f) => f.seq));
    expect(new Set(seen.map((f) => f.id))).toEqual(new Set(load.ids));
    // Both processes did part of the work.
    for (const proc of platform.eventLogs) expect(proc.child.exitCode).toBeNull();
  });

  it('loses nothing when the event-log is SIGKILLed in the middle of the load and restarted', async () => {
    platform = await startTestPlatform();
    const token = await platform.createWorkspace('crash');
    let killed: Promise<unknown> | undefined;
    const load = await postFactsConcurrently({
      baseUrl: platform.gatewayUrl,
      workspace: 'crash',
      token,
      count: FACTS,
      concurrency: 8,
      batchSize: 20,
      onProgress: (posted) => {
        if (posted >= 3_000 && !killed) {
          killed = (async () => {
            const victim = platform!.eventLogs[0]!;
            // Kill while it is mid-work: wait until it has persisted some of the load.
            await waitFor(async () => (await persistedCount(platform!)) > 1_000);
            expect(await victim.stop('SIGKILL')).toBe('SIGKILL');
            await platform!.startEventLog();
          })();
        }
      },
    });
    await killed;
    expect(load.unexpected).toEqual([]);
    await waitFor(async () => (await persistedCount(platform!)) >= FACTS, { timeoutMs: 120_000, what: 'all facts persisted after restart' });
    const stored = await rows(platform);
    expect(stored.count).toBe(FACTS);
    expectDenseSeqs(stored.seqs);
    const published = await waitFor(async () => {
      const ids = await publishedIds(platform!);
      return load.ids.every((id) => ids.has(id)) ? ids : undefined;
    }, { timeoutMs: 30_000, what: 'every id on facts after restart' });
    expect(load.ids.filter((id) => !published.has(id))).toEqual([]);
  });
});
