import { Client } from 'pg';
import { GROUPS, STREAMS } from '@switchyard/contracts';
import { groupCaughtUp, toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * Issue 13 (found by the chaos harness): with two matcher replicas, the
 * consumer group gives each fact to one of them, so the `agent.*` and
 * settings facts a replica did not consume never reached its index — facts
 * it consumed then matched nothing. Every replica now applies every change
 * in fact order (Matcher.changesUpTo). No runner runs here: the runs stay
 * queued, which is what is counted.
 */
jest.setTimeout(120_000);

describe('two matcher replicas', () => {
  let platform: TestPlatform;
  let pg: Client;
  beforeAll(async () => {
    platform = await startTestPlatform();
    await Promise.all([platform.startMatcher(), platform.startMatcher()]);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it('both see agents created, disabled and enabled after they started, and the kill switch, in fact order', async () => {
    const api = apiClient(platform.gatewayUrl, await platform.createWorkspace('replicas'));
    const ws = '/v1/workspaces/replicas';
    const created = await api('POST', `${ws}/agents`, {
      name: 'watcher',
      instructions: 'Watch.',
      model: { provider: 'scripted', name: 'script' },
      script: [{ say: 'seen' }],
      triggers: [{ kind: 'build.done' }],
    });
    expect(created.status).toBe(201);
    const agentId = created.body.id as string;
    const runs = async () => Number((await pg.query('SELECT count(*) FROM runs WHERE agent_id = $1', [agentId])).rows[0].count);
    const post = async (count: number, tag: string) => {
      for (let i = 0; i < count; i++) {
        const response = await api('POST', `${ws}/events`, { kind: 'build.done', subject: { type: 'build', id: `${tag}-${i}` } });
        expect(response.status).toBe(202);
      }
    };
    /** Every fact posted so far stored, published and matched by one replica or the other. */
    const quiet = async () => {
      const groupsDone = (stream: string, group: string) => groupCaughtUp(platform.redis.redis, toKey(platform.redis.prefix, stream), group);
      return (
        Number((await pg.query('SELECT count(*) FROM fact_outbox')).rows[0].count) === 0 &&
        (await groupsDone(STREAMS.ingest, GROUPS.eventLog)) &&
        (await groupsDone(STREAMS.facts, GROUPS.matcher))
      );
    };
    const settled = async (expected: number) => {
      await waitFor(async () => (await runs()) >= expected && (await quiet()), { what: `${expected} runs, the streams consumed` });
      expect(await runs()).toBe(expected);
    };

    await post(40, 'a');
    await settled(40);

    expect((await api('POST', `${ws}/agents/${agentId}/disable`)).status).toBe(200);
    await post(20, 'b');
    expect((await api('POST', `${ws}/agents/${agentId}/enable`)).status).toBe(200);
    await post(10, 'c');
    await settled(50);

    expect((await api('PUT', `${ws}/settings`, { agentsPaused: true })).status).toBe(200);
    await post(10, 'd');
    expect((await api('PUT', `${ws}/settings`, { agentsPaused: false })).status).toBe(200);
    await post(6, 'e');
    await settled(56);
    const subjects = (await pg.query(`SELECT e.subject_id FROM runs r JOIN platform_events e ON e.id = r.event_id WHERE r.agent_id = $1`, [agentId])).rows.map((row) => row.subject_id as string);
    expect(subjects.filter((id) => id.startsWith('b-') || id.startsWith('d-'))).toEqual([]);
  });
});
