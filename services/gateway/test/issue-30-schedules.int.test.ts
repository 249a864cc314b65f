import { Client } from 'pg';
import { ListScheduleFiresResponseSchema, ListSchedulesResponseSchema, ScheduleSchema } from '@switchyard/contracts';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { roleClients } from './role-clients';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 30 §1, schedules, against real processes: the gateway, two
 * event-logs (both fire schedules), the matcher and a runner. An `everyMs`
 * of a second gives a slot a second without the test sleeping on the clock:
 * it waits for fires with a deadline. Every slot fires once across the two
 * event-logs, also while one of them is SIGKILLed again and again; an agent
 * triggered by the fire runs once per fire. Bad input is a 4xx with a stable
 * code and writes nothing.
 */
describe('issue 30: schedules', () => {
  const ws = '/v1/workspaces/acme';
  let platform: TestPlatform;
  let admin: Api;
  let member: Api;
  let viewer: Api;
  let otherAdmin: Api;
  let pg: Client;

  const count = async (sql: string, ...params: unknown[]) => Number((await pg.query(sql, params)).rows[0].n);
  const firesOf = async (id: string) =>
    (await pg.query(`SELECT fact_id::text AS fact_id, slot_at, slot_key, late, manual FROM schedule_fires WHERE schedule_id = $1 ORDER BY slot_at`, [id])).rows as Array<{
      fact_id: string;
      slot_at: Date;
      slot_key: string | null;
      late: boolean;
      manual: boolean;
    }>;

  beforeAll(async () => {
    platform = await startTestPlatform({ eventLogs: 2, matcher: true, runners: 1, env: { SCHEDULE_TICK_MS: '50' } });
    ({ admin, member, viewer, otherAdmin } = await roleClients(platform, 'acme', 'other'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  }, 180_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it('creates, lists, reads, changes and deletes a schedule, with its next fire in its own zone and an audit fact per change', async () => {
    const created = await member('POST', `${ws}/schedules`, { name: 'weekday standup', cron: '0 9 * * 1-5', timezone: 'Europe/Paris', emit: { kind: 'standup.due', payload: { room: 'a' } } });
    expect(created.status).toBe(201);
    const schedule = ScheduleSchema.parse(created.body);
    expect(schedule).toMatchObject({ enabled: true, missed: 'skip', everyMs: null, emit: { kind: 'standup.due', payload: { room: 'a' } }, skippedSlots: 0 });
    expect(schedule.nextFireLocal).toMatch(/ 09:00:00 GMT\+[12]$/);
    expect(new Date(schedule.nextFireAt!).getTime()).toBeGreaterThan(Date.now());

    expect(ListSchedulesResponseSchema.parse((await viewer('GET', `${ws}/schedules`)).body).schedules.map((s) => s.name)).toEqual(['weekday standup']);
    expect((await viewer('GET', `${ws}/schedules/${schedule.id}`)).body).toEqual(created.body);
    const changed = await member('PATCH', `${ws}/schedules/${schedule.id}`, { enabled: false });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ enabled: false, nextFireAt: null });
    const retimed = await member('PATCH', `${ws}/schedules/${schedule.id}`, { enabled: true, cron: '30 2 * * *', timezone: 'America/New_York' });
    expect(retimed.body).toMatchObject({ enabled: true, cron: '30 2 * * *', timezone: 'America/New_York' });
    expect(retimed.body.nextFireLocal).toMatch(/ 02:30:00 (EST|EDT)$/);

    expect((await member('DELETE', `${ws}/schedules/${schedule.id}`)).status).toBe(204);
    expect((await member('GET', `${ws}/schedules/${schedule.id}`)).body.error.code).toBe('SCHEDULE_NOT_FOUND');
    const audit = await waitFor(
      async () => {
        const kinds = (await admin('GET', `${ws}/events?kind=schedule.*&limit=100`)).body.events.filter((e: { subject: { id: string } }) => e.subject.id === schedule.id).map((e: { kind: string }) => e.kind);
        return kinds.length === 4 && kinds;
      },
      { what: 'four schedule audit facts' },
    );
    expect(audit).toEqual(['schedule.created', 'schedule.updated', 'schedule.updated', 'schedule.deleted']);
    expect((await admin('GET', `${ws}/audit?kind=schedule.created`)).status).toBe(200);
  });

  it('refuses bad input with a 4xx and a stable code, writing nothing', async () => {
    const before = { schedules: await count('SELECT count(*) AS n FROM schedules'), facts: await platform.factsRecorded() };
    const cases: Array<[Api, string, string, unknown, number, string]> = [
      [member, 'POST', `${ws}/schedules`, { name: 'x', cron: '61 * * * *' }, 400, 'SCHEDULE_INVALID'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', cron: '0 0 30 2 *' }, 400, 'SCHEDULE_INVALID'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', cron: '* * * *' }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', cron: '* * * * *', timezone: 'Mars/Olympus' }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', cron: '* * * * *', everyMs: 1000 }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x' }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', everyMs: 10 }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', everyMs: '1000' }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 7, everyMs: 1000 }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', everyMs: 1000, emit: { kind: 'token.created' } }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', everyMs: 1000, missed: 'all' }, 400, 'VALIDATION_FAILED'],
      [member, 'POST', `${ws}/schedules`, { name: 'x', everyMs: 1000, extra: 1 }, 400, 'VALIDATION_FAILED'],
      [viewer, 'POST', `${ws}/schedules`, { name: 'x', everyMs: 1000 }, 403, 'FORBIDDEN'],
      [member, 'GET', `${ws}/schedules/not-a-uuid`, undefined, 400, 'VALIDATION_FAILED'],
      [member, 'PATCH', `${ws}/schedules/0190a000-0000-7000-8000-000000000000`, { enabled: false }, 404, 'SCHEDULE_NOT_FOUND'],
      [member, 'POST', `${ws}/schedules/0190a000-0000-7000-8000-000000000000/fire`, undefined, 404, 'SCHEDULE_NOT_FOUND'],
      [otherAdmin, 'GET', `${ws}/schedules`, undefined, 403, 'WORKSPACE_FORBIDDEN'],
    ];
    for (const [api, method, path, body, status, code] of cases) {
      const answer = await api(method, path, body);
      expect({ path, body, status: answer.status, code: answer.body?.error?.code }).toEqual({ path, body, status, code });
    }
    // Another workspace's schedule id is not found from here, for every verb.
    const theirs = (await otherAdmin('POST', '/v1/workspaces/other/schedules', { name: 'theirs', cron: '0 0 1 1 *' })).body.id as string;
    for (const [method, suffix, body] of [['GET', ''], ['PATCH', '', { enabled: false }], ['DELETE', ''], ['POST', '/fire'], ['GET', '/fires']] as Array<[string, string, unknown?]>) {
      const answer = await admin(method, `${ws}/schedules/${theirs}${suffix}`, body);
      expect({ method, suffix, status: answer.status, code: answer.body?.error?.code }).toEqual({ method, suffix, status: 404, code: 'SCHEDULE_NOT_FOUND' });
    }
    const taken = (await member('POST', `${ws}/schedules`, { name: 'taken', cron: '0 0 1 1 *' })).body.id as string;
    await member('POST', `${ws}/schedules`, { name: 'other', cron: '0 0 1 1 *' });
    expect((await member('POST', `${ws}/schedules`, { name: 'taken', everyMs: 5000 })).body.error.code).toBe('SCHEDULE_NAME_TAKEN');
    for (const [body, status, code] of [
      [{ cron: '61 * * * *' }, 400, 'SCHEDULE_INVALID'],
      [{ cron: '* * * * *', everyMs: 1000 }, 400, 'VALIDATION_FAILED'],
      [{}, 400, 'VALIDATION_FAILED'],
      [{ timezone: 'Nowhere/Land' }, 400, 'VALIDATION_FAILED'],
      [{ enabled: 'yes' }, 400, 'VALIDATION_FAILED'],
      [{ name: 'other' }, 409, 'SCHEDULE_NAME_TAKEN'],
    ] as Array<[unknown, number, string]>) {
      const answer = await member('PATCH', `${ws}/schedules/${taken}`, body);
      expect({ body, status: answer.status, code: answer.body?.error?.code }).toEqual({ body, status, code });
    }
    expect(await count('SELECT count(*) AS n FROM schedules')).toBe(before.schedules + 3);
    // The three creates' schedule.created, and nothing for any refused request.
    expect(await platform.factsRecorded()).toBe(before.facts + 3);
    expect((await member('GET', `${ws}/schedules/${taken}`)).body).toMatchObject({ name: 'taken', cron: '0 0 1 1 *', timezone: 'UTC', enabled: true });
  });

  it('an every-second schedule fired by two event-logs: one fire and one fact per slot, and a triggered agent runs once per fire', async () => {
    const agent = await admin('POST', `${ws}/agents`, { name: 'ticker', instructions: 'Tick.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'tick' }], triggers: [{ kind: 'tick.due' }] });
    expect(agent.status).toBe(201);
    const created = await member('POST', `${ws}/schedules`, { name: 'tick', everyMs: 1000, emit: { kind: 'tick.due' } });
    const id = created.body.id as string;
    await waitFor(async () => (await firesOf(id)).length >= 6, { what: 'six fires', timeoutMs: 30_000 });
    await member('PATCH', `${ws}/schedules/${id}`, { enabled: false });
    const fires = await firesOf(id);
    const slots = fires.map((f) => f.slot_at.getTime());
    // Consecutive seconds, none twice, none missing.
    expect(slots.map((slot) => slot - slots[0]!)).toEqual(fires.map((_, i) => i * 1000));
    expect(fires.every((f) => !f.late && !f.manual)).toBe(true);
    const listed = ListScheduleFiresResponseSchema.parse((await viewer('GET', `${ws}/schedules/${id}/fires?limit=500`)).body).fires;
    expect(listed.map((f) => f.factId).sort()).toEqual(fires.map((f) => f.fact_id).sort());
    // Each fire is a stored fact caused by nothing but the schedule, keyed by its slot; the agent ran once per fire.
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM platform_events WHERE id = ANY($1::uuid[])`, fires.map((f) => f.fact_id))) === fires.length, { what: 'the fires stored as facts' });
    const runs = await waitFor(
      async () => {
        const { rows } = await pg.query(`SELECT event_id::text AS event_id, status FROM runs WHERE agent_id = $1`, [agent.body.id]);
        return rows.length === fires.length && rows.every((r) => r.status === 'completed') && rows;
      },
      { what: 'one completed run per fire', timeoutMs: 30_000 },
    );
    expect(runs.map((r: { event_id: string }) => r.event_id).sort()).toEqual(fires.map((f) => f.fact_id).sort());
  });

  it('POST /fire fires now, enabled or not: one manual fact, in the history with its id', async () => {
    const created = await member('POST', `${ws}/schedules`, { name: 'manual', cron: '0 0 1 1 *', enabled: false });
    const fired = await member('POST', `${ws}/schedules/${created.body.id}/fire`);
    expect(fired.status).toBe(201);
    expect(fired.body).toMatchObject({ manual: true, late: false, factId: expect.any(String) });
    const fact = await waitFor(async () => {
      const answer = await admin('GET', `${ws}/events/${fired.body.factId}`);
      return answer.status === 200 && answer.body;
    }, { what: 'the manual fire fact' });
    expect(fact).toMatchObject({ kind: 'schedule.fired', subject: { type: 'schedule', id: created.body.id }, actor: { type: 'member' }, payload: { schedule: { manual: true, name: 'manual' } } });
    expect((await viewer('GET', `${ws}/schedules/${created.body.id}/fires`)).body.fires).toEqual([fired.body]);
  });

  it('SIGKILL of a firing event-log, again and again: no slot lost beyond the missed policy, none doubled', async () => {
    const created = await member('POST', `${ws}/schedules`, { name: 'chaos', everyMs: 1000, missed: 'fire_once', emit: { kind: 'chaos.tick' } });
    const id = created.body.id as string;
    const live = [...platform.eventLogs];
    for (let round = 0; round < 4; round++) {
      await waitFor(async () => (await firesOf(id)).length >= 2 * (round + 1), { what: `fires before kill ${round}`, timeoutMs: 30_000 });
      await live.shift()!.stop('SIGKILL');
      live.push(await platform.startEventLog({ SCHEDULE_TICK_MS: '50' }));
    }
    await member('PATCH', `${ws}/schedules/${id}`, { enabled: false });
    const fires = await firesOf(id);
    const { skipped_slots: skipped } = (await pg.query(`SELECT skipped_slots FROM schedules WHERE id = $1`, [id])).rows[0];
    const keys = fires.map((f) => f.slot_key);
    expect(new Set(keys).size).toBe(keys.length);
    const span = (fires.at(-1)!.slot_at.getTime() - fires[0]!.slot_at.getTime()) / 1000 + 1;
    // Every slot from the first fire to the last either fired or was counted as passed over.
    expect(fires.length + skipped).toBe(span);
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM platform_events WHERE id = ANY($1::uuid[])`, fires.map((f) => f.fact_id))) === fires.length, { what: 'every fire stored once' });
    expect(await count(`SELECT count(*) AS n FROM platform_events WHERE kind = 'chaos.tick'`)).toBe(fires.length);
  });
});
