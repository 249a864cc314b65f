import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import type { AcceptedFact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { databaseNameOf } from '@switchyard/db';
import { RedisIngestWriter, toKey } from '@switchyard/redis';
import { adminQuery, apiClient, startTestPlatform, waitFor, type TestPlatform, nodeArgsFor } from '@switchyard/testing';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

/**
 * Issue 13: an acknowledged fact PostgreSQL refuses is never lost nor
 * answered with a phantom id. The refusal is forced past the gateway's door
 * checks: the fact is accepted through the same writer the gateway uses
 * (its key claimed, its entry on `ingest`) with a payload PostgreSQL will not
 * store. It must become a persisted dead letter at once — counted on the
 * event-log's /metrics, listed and replayable by the admin CLI — the rest of
 * its batch stored, and its key freed so that a clean retry is a new fact.
 * A transient failure (PostgreSQL refusing connections) is retried instead.
 */
describe('issue 13: facts the event-log cannot store', () => {
  let platform: TestPlatform;
  let pg: Client;
  let api: ReturnType<typeof apiClient>;
  let workspaceId: string;
  let writer: RedisIngestWriter;

  beforeAll(async () => {
    platform = await startTestPlatform();
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('refusals'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    workspaceId = (await pg.query<{ id: string }>(`SELECT id::text AS id FROM workspaces WHERE slug = 'refusals'`)).rows[0]!.id;
    writer = new RedisIngestWriter(platform.redis.redis, platform.redis.prefix, toKey(platform.redis.prefix, 'ingest'), 3600);
  });
  afterAll(async () => {
    await pg.end();
    await platform.stop();
  });

  const admin = async (...args: string[]) =>
    (await run(process.execPath, [...nodeArgsFor('scripts/admin.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...platform.env } })).stdout;
  const listed = (out: string) => out.trim().split('\n').slice(0, -1).map((line) => JSON.parse(line));
  const healthPort = () => /"healthPort":(\d+)/.exec(platform.eventLogs[0]!.output())![1];
  const deadLetterGauge = async () => {
    const text = await fetch(`http://127.0.0.1:${healthPort()}/metrics`).then((r) => r.text());
    const line = text.split('\n').find((l) => l.startsWith(`switchyard_dead_letters{stream="${platform.redis.prefix}:ingest",group="event-log"}`));
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };
  const fact = (extra: Partial<AcceptedFact> = {}): AcceptedFact => ({
    id: newId(),
    workspace: 'refusals',
    workspaceId,
    kind: 'note.written',
    subject: { type: 'note', id: '1' },
    payload: { text: 'clean' },
    ts: new Date().toISOString(),
    ...extra,
  });
  const stored = async (id: string) => (await api('GET', `/v1/workspaces/refusals/events/${id}`)).status === 200;

  it('dead-letters the refused fact at once, stores its batch, frees its key; a clean retry is 202 and stored', async () => {
    const before = fact();
    const refused = fact({ payload: { text: 'nul \u0000 inside' }, idempotencyKey: 'note-1' });
    const afterIt = fact();
    const accepted = await writer.accept([before, refused, afterIt].map((f) => ({ fact: f, correlationId: 'test' })));
    expect(accepted.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted']);

    const [letter] = await waitFor(async () => {
      const letters = listed(await admin('dead-letters', 'list', 'ingest'));
      return letters.length === 1 ? letters : undefined;
    }, { what: 'the dead letter' });
    expect(letter).toMatchObject({ deliveries: 1, group: 'event-log', replayedAt: null });
    expect(letter.error).toMatch(/SQLSTATE 22/);
    expect(JSON.parse(letter.message).fact.id).toBe(refused.id);
    // Persisted: in PostgreSQL, not only in Redis.
    expect((await pg.query('SELECT count(*)::int AS n FROM dead_letters WHERE replayed_at IS NULL')).rows[0].n).toBe(1);
    for (const id of [before.id, afterIt.id]) await waitFor(() => stored(id), { what: `fact ${id}` });
    expect(await stored(refused.id)).toBe(false);
    expect(await deadLetterGauge()).toBe(1);

    const idemKey = toKey(platform.redis.prefix, 'idem', workspaceId, Buffer.from('note-1').toString('base64url'));
    await waitFor(async () => (await platform.redis.redis.exists(idemKey)) === 0, { what: 'the key released' });
    const retry = await api('POST', '/v1/workspaces/refusals/events', { kind: 'note.written', subject: { type: 'note', id: '1' }, payload: { text: 'clean' }, idempotencyKey: 'note-1' });
    expect(retry.status).toBe(202);
    expect(retry.body.id).not.toBe(refused.id);
    await waitFor(() => stored(retry.body.id), { what: 'the retry stored' });

    // Replayed, it is refused again (a new letter, the first kept and marked); the key now names the retry and stays.
    expect(await admin('dead-letters', 'replay', letter.id)).toContain('1 dead letter(s) replayed');
    await waitFor(async () => listed(await admin('dead-letters', 'list')).some((l) => l.id !== letter.id), { what: 'the replay refused again' });
    expect(listed(await admin('dead-letters', 'list', '--replayed'))).toHaveLength(2);
    expect(await deadLetterGauge()).toBe(1);
    const repeat = await api('POST', '/v1/workspaces/refusals/events', { kind: 'note.written', subject: { type: 'note', id: '1' }, payload: { text: 'clean' }, idempotencyKey: 'note-1' });
    expect(repeat).toMatchObject({ status: 200, body: { id: retry.body.id } });
  });

  it('retries a fact while PostgreSQL refuses connections, and stores it once it accepts them', async () => {
    const name = databaseNameOf(platform.db.url);
    const lettersBefore = listed(await admin('dead-letters', 'list', '--replayed')).length;
    const lastErrors = toKey(platform.redis.prefix, 'dlq-errors', 'ingest', 'event-log');
    const transient = fact({ idempotencyKey: 'note-2' });
    await pg.end();
    await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    try {
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
      await writer.accept([{ fact: transient, correlationId: 'test' }]);
      // The event-log tried, failed and keeps the entry pending with its error.
      await waitFor(async () => (await platform.redis.redis.hlen(lastErrors)) > 0, { what: 'a failed attempt' });
    } finally {
      await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    }
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    await waitFor(() => stored(transient.id), { what: 'the fact stored after the outage', timeoutMs: 20_000 });
    expect(listed(await admin('dead-letters', 'list', '--replayed'))).toHaveLength(lettersBefore);
    await waitFor(async () => (await platform.redis.redis.hlen(lastErrors)) === 0, { what: 'its error cleared' });
  });
});
