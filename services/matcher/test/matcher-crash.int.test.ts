import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * The matcher SIGKILLed in the middle of a batch, with a runner executing
 * what it queued: after a restart every (agent, fact) pair still has exactly
 * one run, every run reaches exactly one terminal status, and no status fact
 * is recorded twice.
 */
jest.setTimeout(180_000);

const FACTS = 300;

describe('matcher crash (real processes)', () => {
  let platform: TestPlatform;
  let pg: Client;
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it('loses and duplicates nothing when killed mid-batch and restarted', async () => {
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { CLAIM_IDLE_MS: '1000' } });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const token = await platform.createWorkspace('crash');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (
      await api('POST', '/v1/workspaces/crash/agents', {
        name: 'worker',
        instructions: 'Act on the fact.',
        model: { provider: 'scripted', name: 'script', params: { stepMs: 0 } },
        script: [{ say: 'done' }],
        triggers: [{ kind: 'work.item' }],
        flow: { queueCap: 10_000 },
      })
    ).body.id;
    const posting = (async () => {
      for (let i = 0; i < FACTS; i += 20) {
        await api('POST', '/v1/workspaces/crash/events:batch', { events: Array.from({ length: 20 }, (_, k) => ({ kind: 'work.item', subject: { type: 'w', id: String(i + k) } })) });
      }
    })();
    const count = async (sql: string) => Number((await pg.query(sql, [agent])).rows[0].n);
    // Kill it once it has made some runs but not all: in the middle of its work.
    await waitFor(async () => (await count('SELECT count(*) AS n FROM runs WHERE agent_id = $1')) >= 60, { intervalMs: 10, what: 'some runs' });
    expect(await platform.matcher!.stop('SIGKILL')).toBe('SIGKILL');
    await posting;
    await platform.startMatcher();

    await waitFor(async () => (await count(`SELECT count(*) AS n FROM runs WHERE agent_id = $1 AND status::text IN ('completed','failed','cancelled','dropped')`)) === FACTS, {
      timeoutMs: 150_000,
      intervalMs: 200,
      what: 'every run ended',
    });
    const perFact = await pg.query(`SELECT event_id, count(*)::int AS n FROM runs WHERE agent_id = $1 GROUP BY event_id`, [agent]);
    expect(perFact.rows).toHaveLength(FACTS);
    expect(perFact.rows.every((row) => row.n === 1)).toBe(true);
    expect(await count(`SELECT count(*) AS n FROM runs WHERE agent_id = $1 AND status = 'completed'`)).toBe(FACTS);
    // Each run's facts were recorded once each (idempotency keys hold across the crash).
    await waitFor(async () => (await pg.query(`SELECT 1 FROM platform_events WHERE kind = 'agent.run.completed'`)).rowCount === FACTS, { timeoutMs: 30_000, what: 'completed facts' });
    const repeated = await pg.query(
      `SELECT subject_id, kind, count(*)::int AS n FROM platform_events WHERE kind LIKE 'agent.run.%' GROUP BY subject_id, kind HAVING count(*) > 1`,
    );
    expect(repeated.rows).toEqual([]);
  });
});
