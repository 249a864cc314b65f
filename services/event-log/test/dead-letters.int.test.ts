import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { apiClient, startTestPlatform, waitFor, type TestPlatform, nodeArgsFor } from '@switchyard/testing';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

/**
 * Poison entries on `ingest`: each is recorded as a dead letter in PostgreSQL
 * with its error, the entries after it are persisted, and an operator can
 * list and replay dead letters with `npm run admin -- dead-letters`.
 */
describe('event-log dead letters', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { MAX_DELIVERIES: '2' } });
  });
  afterAll(() => platform.stop());

  const admin = async (...args: string[]) =>
    (await run(process.execPath, [...nodeArgsFor('scripts/admin.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...platform.env } })).stdout;
  const listed = (out: string) => out.trim().split('\n').slice(0, -1).map((line) => JSON.parse(line));

  it('dead-letters undecodable and unknown-workspace entries at once with their errors and persists the ones after them', async () => {
    const token = await platform.createWorkspace('dlq');
    const api = apiClient(platform.gatewayUrl, token);
    const ingest = `${platform.redis.prefix}:ingest`;
    const valid = (await api('POST', '/v1/workspaces/dlq/events', { kind: 'before.poison', subject: { type: 't', id: '1' } })).body.id;
    // Written straight to the stream, as a bug or an attacker with Redis access might.
    await platform.redis.redis.xadd(ingest, '*', 'm', '{"type":"fact_accepted","broken":');
    const ghost = {
      id: '0190f0f0-0000-7000-8000-0000000000aa',
      type: 'fact_accepted',
      occurredAt: new Date().toISOString(),
      correlationId: 'test',
      schemaVersion: 1,
      fact: {
        id: '0190f0f0-0000-7000-8000-0000000000aa',
        workspace: 'ghost',
        workspaceId: '0190f0f0-0000-7000-8000-0000000000bb',
        kind: 'ghost.fact',
        subject: { type: 't', id: '1' },
        payload: {},
        ts: new Date().toISOString(),
      },
    };
    await platform.redis.redis.xadd(ingest, '*', 'm', JSON.stringify(ghost));
    const after = (await api('POST', '/v1/workspaces/dlq/events', { kind: 'after.poison', subject: { type: 't', id: '2' } })).body.id;

    for (const id of [valid, after]) {
      await waitFor(async () => (await api('GET', `/v1/workspaces/dlq/events/${id}`)).status === 200, { what: `fact ${id}` });
    }
    const listing = await waitFor(async () => {
      const out = await admin('dead-letters', 'list', 'ingest');
      return out.includes('2 dead letter(s)') ? out : undefined;
    }, { what: 'two dead letters' });
    const letters = listed(listing);
    expect(letters[0].error).toMatch(/JSON/);
    expect(letters[0]).toMatchObject({ deliveries: 1, stream: ingest, group: 'event-log', replayedAt: null });
    expect(letters[1].error).toContain('workspace that does not exist');
    // Refused for good: at once, not after MAX_DELIVERIES.
    expect(letters[1].deliveries).toBe(1);
    expect(JSON.parse(letters[1].message).fact.id).toBe(ghost.id);
    // Nothing of the ghost workspace was stored.
    expect((await api('GET', `/v1/workspaces/dlq/events/${ghost.id}`)).status).toBe(404);
    // Letters of another stream are listed apart.
    expect(await admin('dead-letters', 'list', 'facts')).toContain(`0 dead letter(s) of ${platform.redis.prefix}:facts`);

    // Replay puts it back; it fails the same way and comes back as a new letter; the replayed one is kept, marked.
    expect(await admin('dead-letters', 'replay', letters[1].id)).toContain('1 dead letter(s) replayed');
    const again = await waitFor(async () => {
      const now = listed(await admin('dead-letters', 'list'));
      return now.length === 2 && !now.some((letter) => letter.id === letters[1].id) ? now : undefined;
    }, { what: 'the replayed letter to fail again' });
    expect(JSON.parse(again[1].message).fact.id).toBe(ghost.id);
    const all = listed(await admin('dead-letters', 'list', '--replayed'));
    expect(all).toHaveLength(3);
    expect(all.find((letter) => letter.id === letters[1].id)).toMatchObject({ replayedAt: expect.any(String), replayedAs: expect.any(String) });
    expect(await admin('dead-letters', 'replay', letters[1].id)).toContain('already replayed');
  });
});
