import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { RunSchema } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createActivationQueue, type ActivationQueue } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/**
 * The run ledger and the kill switch over real HTTP against the real gateway
 * and event-log processes. No matcher or runner runs here, so runs in other
 * states than `queued` are inserted into the test database directly; jobs are
 * looked up on the real `activations` queue under the platform's prefix.
 */
describe('runs and settings API', () => {
  let platform: TestPlatform;
  let api: Api;
  let member: Api;
  let viewer: Api;
  let other: Api;
  let pg: Client;
  let queue: ActivationQueue;
  let acmeId: string;
  let otherId: string;
  let adminUserId: string;
  const agents: Record<string, string> = {};
  const ws = '/v1/workspaces/acme';

  beforeAll(async () => {
    platform = await startTestPlatform();
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    member = apiClient(platform.gatewayUrl, (await api('POST', `${ws}/tokens`, { name: 'ci', role: 'member' })).body.token);
    viewer = apiClient(platform.gatewayUrl, (await api('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const ids = await pg.query(`SELECT slug, id FROM workspaces`);
    acmeId = ids.rows.find((r) => r.slug === 'acme').id;
    otherId = ids.rows.find((r) => r.slug === 'other').id;
    adminUserId = (await pg.query(`SELECT user_id FROM api_tokens WHERE workspace_id = $1 AND role = 'admin'`, [acmeId])).rows[0].user_id;
    queue = createActivationQueue(platform.redis.redis, platform.redis.prefix);
    for (const name of ['lister', 'worker', 'manual', 'off', 'gone']) {
      agents[name] = (await api('POST', `${ws}/agents`, spec(name, name !== 'off'))).body.id;
    }
    agents.theirs = (await other('POST', '/v1/workspaces/other/agents', spec('theirs'))).body.id;
    expect(Object.values(agents).every((id) => typeof id === 'string')).toBe(true);
    await api('DELETE', `${ws}/agents/${agents.gone}`);
  });
  afterAll(async () => {
    await queue.close();
    await pg.end();
    await platform.stop();
  });

  function spec(name: string, enabled = true) {
    return { name, instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }], enabled };
  }
  /** Inserts a run as the matcher and runner would have left it (trigger origin). */
  async function insertRun(agentId: string, status: string, workspaceId = acmeId): Promise<string> {
    const id = newId();
    const eventId = randomUUID();
    const ended = ['completed', 'failed', 'cancelled', 'dropped'].includes(status);
    await pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, reason, session_id, started_at, ended_at)
       VALUES ($1, $2, $3, 1, 'trigger', $4, $5, 'build.failed', $6::"RunStatus", $7, $8, $9, $10)`,
      [id, workspaceId, agentId, JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }), eventId, status,
        status === 'failed' ? 'LLM_TIMEOUT' : null, randomUUID(), status === 'queued' ? null : new Date(), ended ? new Date() : null],
    );
    return id;
  }
  const jobCount = async () => Object.values(await queue.getJobCounts()).reduce((a, b) => a + b, 0);
  const ingestAdded = () => platform.factsRecorded();
  /** Everything a run or settings command could change: rows, flags, facts accepted, jobs. */
  const snapshot = async () => {
    const { rows } = await pg.query(
      `SELECT (SELECT string_agg(id::text || status::text || stop_requested::text, ',' ORDER BY id) FROM runs) AS runs,
              (SELECT string_agg(workspace_id::text || agents_paused::text || approvals, ',') FROM workspace_settings) AS settings`,
    );
    return { ...rows[0], facts: await ingestAdded(), jobs: await jobCount() };
  };
  const factsAbout = (subjectId: string, kind: string) =>
    waitFor(async () => {
      const page = await api('GET', `${ws}/events?kind=${kind}&limit=1000`);
      const found = page.body.events.filter((e: { subject: { id: string } }) => e.subject.id === subjectId);
      return found.length > 0 ? found : undefined;
    }, { what: `${kind} fact of ${subjectId}` });

  it('lists newest first with filters and a cursor, and reads one run', async () => {
    const ids = [];
    for (const status of ['queued', 'running', 'completed', 'failed', 'completed']) ids.push(await insertRun(agents.lister!, status));
    await insertRun(agents.theirs!, 'completed', otherId);
    const all = await viewer('GET', `${ws}/runs?agentId=${agents.lister}`);
    expect(all.status).toBe(200);
    expect(all.body.runs.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    expect(all.body.nextCursor).toBeNull();
    for (const run of all.body.runs) expect(RunSchema.parse(run)).toEqual(run);

    const completed = await viewer('GET', `${ws}/runs?agentId=${agents.lister}&status=completed`);
    expect(completed.body.runs.map((r: { id: string }) => r.id)).toEqual([ids[4], ids[2]]);
    const first = await viewer('GET', `${ws}/runs?agentId=${agents.lister}&limit=2`);
    expect(first.body).toMatchObject({ runs: [{ id: ids[4] }, { id: ids[3] }], nextCursor: ids[3] });
    const second = await viewer('GET', `${ws}/runs?agentId=${agents.lister}&limit=2&after=${ids[3]}`);
    expect(second.body.runs.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    // Only this workspace's runs, whatever the filter.
    const mine = await viewer('GET', `${ws}/runs?limit=200`);
    expect(mine.body.runs.every((r: { workspace: string }) => r.workspace === 'acme')).toBe(true);
    expect((await viewer('GET', `${ws}/runs?agentId=${agents.theirs}`)).body.runs).toEqual([]);

    const one = await viewer('GET', `${ws}/runs/${ids[3]}`);
    expect(one.body).toMatchObject({ id: ids[3], agentId: agents.lister, agentVersion: 1, status: 'failed', reason: 'LLM_TIMEOUT', depth: 0, causedBy: null });
    expect(one.body.origin).toMatchObject({ type: 'trigger', agentVersion: 1, triggerIndex: 0 });
  });

  it('cancels a queued run at once and records agent.run.cancelled', async () => {
    const id = await insertRun(agents.worker!, 'queued');
    const stopped = await member('POST', `${ws}/runs/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ id, status: 'cancelled', reason: 'stopped', endedAt: expect.any(String) });
    const row = (await pg.query('SELECT status, stop_requested FROM runs WHERE id = $1', [id])).rows[0];
    expect(row).toEqual({ status: 'cancelled', stop_requested: true });
    const [fact] = await factsAbout(id, 'agent.run.cancelled');
    expect(fact).toMatchObject({
      subject: { type: 'run', id },
      // Run statuses are stated by the platform (the runs trigger, decision 0024), whoever changed them.
      actor: { type: 'system', id: 'switchyard' },
      payload: { agentId: agents.worker, agentVersion: 1, status: 'cancelled', reason: 'stopped' },
      causedBy: { runId: id, agentId: agents.worker, depth: 1 },
    });
  });

  it('cancels a parked run at once (200): it has no runner (decision 0028)', async () => {
    const id = await insertRun(agents.worker!, 'awaiting_approval');
    const stopped = await member('POST', `${ws}/runs/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ id, status: 'cancelled', reason: 'stopped', action: 'cancelled' });
    expect((await pg.query('SELECT status, stop_requested FROM runs WHERE id = $1', [id])).rows[0]).toEqual({ status: 'cancelled', stop_requested: true });
  });

  it.each(['running'])('flags a %s run for the runner to cancel (202), recording nothing yet', async (status) => {
    const id = await insertRun(agents.worker!, status);
    const facts = await ingestAdded();
    const stopped = await member('POST', `${ws}/runs/${id}/stop`);
    expect(stopped.status).toBe(202);
    expect(stopped.body).toMatchObject({ id, status });
    expect((await pg.query('SELECT status, stop_requested FROM runs WHERE id = $1', [id])).rows[0]).toEqual({ status, stop_requested: true });
    expect(await ingestAdded()).toBe(facts);
  });

  it('retries an ended run as a new queued run of the latest version, with its job and fact', async () => {
    const failed = await insertRun(agents.worker!, 'failed');
    const originalEvent = (await pg.query('SELECT event_id FROM runs WHERE id = $1', [failed])).rows[0].event_id;
    await api('PUT', `${ws}/agents/${agents.worker}`, { ...spec('worker'), task: 'v2' });
    const retried = await member('POST', `${ws}/runs/${failed}/retry`);
    expect(retried.status).toBe(201);
    const id = retried.body.id;
    expect(id).not.toBe(failed);
    expect(retried.headers.get('location')).toBe(`${ws}/runs/${id}`);
    expect(retried.body).toMatchObject({ agentId: agents.worker, agentVersion: 2, status: 'queued', depth: 0, causedBy: null });
    expect(retried.body.origin).toEqual({ type: 'retry', retryOf: failed, eventId: originalEvent, userId: expect.any(String) });
    expect((await viewer('GET', `${ws}/runs/${id}`)).body).toEqual(retried.body);
    const job = await queue.getJob(id);
    expect(job?.data).toEqual({ schemaVersion: 1, runId: id, workspaceId: acmeId, agentId: agents.worker });
    const [fact] = await factsAbout(id, 'agent.run.queued');
    expect(fact.payload).toEqual({ agentId: agents.worker, agentVersion: 2, status: 'queued', reason: null, origin: 'retry', eventId: originalEvent });
    expect(fact.idempotencyKey).toBe(`run:${id}:queued`);
  });

  it('starts a manual run with its input, job and fact', async () => {
    const started = await member('POST', `${ws}/agents/${agents.manual}/runs`, { input: 'look at build 42' });
    expect(started.status).toBe(201);
    const id = started.body.id;
    expect(started.body).toMatchObject({ workspace: 'acme', agentId: agents.manual, agentVersion: 1, status: 'queued', startedAt: null, outcome: null });
    expect(RunSchema.parse(started.body).origin).toEqual({ type: 'manual', input: 'look at build 42', userId: expect.any(String) });
    expect((await queue.getJob(id))?.data.runId).toBe(id);
    const [fact] = await factsAbout(id, 'agent.run.queued');
    expect(fact).toMatchObject({ subject: { type: 'run', id }, causedBy: { runId: id, agentId: agents.manual, depth: 1 } });
    // The admin started this one: its origin names the admin's user.
    const byAdmin = await api('POST', `${ws}/agents/${agents.manual}/runs`, { input: 'again' });
    expect(byAdmin.body.origin.userId).toBe(adminUserId);
  });

  describe('bad input leaves no row, no flag, no fact and no job', () => {
    let completed: string;
    let queued: string;
    let offRun: string;
    let theirs: string;
    const unknown = '0190f0f0-0000-7000-8000-000000000001';

    beforeAll(async () => {
      completed = await insertRun(agents.worker!, 'completed');
      queued = await insertRun(agents.worker!, 'queued');
      offRun = await insertRun(agents.off!, 'failed');
      theirs = await insertRun(agents.theirs!, 'queued', otherId);
    });

    type Case = [string, () => Promise<{ status: number; body: any }>, number, string];
    const cases: Case[] = [
      ['stop of a completed run', () => member('POST', `${ws}/runs/${completed}/stop`), 409, 'RUN_NOT_ACTIVE'],
      ['retry of a queued run', () => member('POST', `${ws}/runs/${queued}/retry`), 409, 'RUN_NOT_FINISHED'],
      ['retry of a disabled agent run', () => member('POST', `${ws}/runs/${offRun}/retry`), 409, 'AGENT_DISABLED'],
      ['manual run of a disabled agent', () => member('POST', `${ws}/agents/${agents.off}/runs`, { input: 'x' }), 409, 'AGENT_DISABLED'],
      ['manual run of a deleted agent', () => member('POST', `${ws}/agents/${agents.gone}/runs`, { input: 'x' }), 404, 'AGENT_NOT_FOUND'],
      ['manual run of an unknown agent', () => member('POST', `${ws}/agents/${unknown}/runs`, { input: 'x' }), 404, 'AGENT_NOT_FOUND'],
      ["manual run of another workspace's agent", () => member('POST', `${ws}/agents/${agents.theirs}/runs`, { input: 'x' }), 404, 'AGENT_NOT_FOUND'],
      ['manual run without input', () => member('POST', `${ws}/agents/${agents.manual}/runs`, {}), 400, 'VALIDATION_FAILED'],
      ['manual run with empty input', () => member('POST', `${ws}/agents/${agents.manual}/runs`, { input: '' }), 400, 'VALIDATION_FAILED'],
      ['manual run with an unknown field', () => member('POST', `${ws}/agents/${agents.manual}/runs`, { input: 'x', model: 'y' }), 400, 'VALIDATION_FAILED'],
      ['manual run with malformed JSON', () => member('POST', `${ws}/agents/${agents.manual}/runs`, '{"input": '), 400, 'MALFORMED_JSON'],
      ['manual run with a malformed agent id', () => member('POST', `${ws}/agents/nope/runs`, { input: 'x' }), 400, 'VALIDATION_FAILED'],
      ['stop of an unknown run', () => member('POST', `${ws}/runs/${unknown}/stop`), 404, 'RUN_NOT_FOUND'],
      ['retry of an unknown run', () => member('POST', `${ws}/runs/${unknown}/retry`), 404, 'RUN_NOT_FOUND'],
      ["stop of another workspace's run", () => member('POST', `${ws}/runs/${theirs}/stop`), 404, 'RUN_NOT_FOUND'],
      ["retry of another workspace's run", () => member('POST', `${ws}/runs/${theirs}/retry`), 404, 'RUN_NOT_FOUND'],
      ["stop through another workspace's path", () => member('POST', `/v1/workspaces/other/runs/${theirs}/stop`), 403, 'WORKSPACE_FORBIDDEN'],
      ['stop with a malformed id', () => member('POST', `${ws}/runs/42/stop`), 400, 'VALIDATION_FAILED'],
      ['retry with a malformed id', () => member('POST', `${ws}/runs/not-a-uuid/retry`), 400, 'VALIDATION_FAILED'],
      ['viewer stopping', () => viewer('POST', `${ws}/runs/${queued}/stop`), 403, 'FORBIDDEN'],
      ['viewer retrying', () => viewer('POST', `${ws}/runs/${completed}/retry`), 403, 'FORBIDDEN'],
      ['viewer starting', () => viewer('POST', `${ws}/agents/${agents.manual}/runs`, { input: 'x' }), 403, 'FORBIDDEN'],
      ['viewer saving settings', () => viewer('PUT', `${ws}/settings`, { agentsPaused: true }), 403, 'FORBIDDEN'],
      ['member saving settings', () => member('PUT', `${ws}/settings`, { agentsPaused: true }), 403, 'FORBIDDEN'],
      ['settings without agentsPaused', () => api('PUT', `${ws}/settings`, {}), 400, 'VALIDATION_FAILED'],
      ['settings with a string flag', () => api('PUT', `${ws}/settings`, { agentsPaused: 'yes' }), 400, 'VALIDATION_FAILED'],
      ['settings with an unknown field', () => api('PUT', `${ws}/settings`, { agentsPaused: true, color: 'red' }), 400, 'VALIDATION_FAILED'],
    ];
    it.each(cases)('%s', async (_name, request, status, code) => {
      const before = await snapshot();
      const response = await request();
      expect(response.status).toBe(status);
      expect(response.body.error.code).toBe(code);
      expect(await snapshot()).toEqual(before);
    });

    it('says which status refused a stop or a retry', async () => {
      expect((await member('POST', `${ws}/runs/${completed}/stop`)).body.error.details).toEqual({ id: completed, status: 'completed' });
      expect((await member('POST', `${ws}/runs/${queued}/retry`)).body.error.details).toEqual({ id: queued, status: 'queued' });
    });

    it('answers unknown, foreign and malformed ids and queries on reads', async () => {
      expect((await viewer('GET', `${ws}/runs/${unknown}`)).body.error.code).toBe('RUN_NOT_FOUND');
      expect((await viewer('GET', `${ws}/runs/${theirs}`)).body.error.code).toBe('RUN_NOT_FOUND');
      expect((await other('GET', `${ws}/runs/${queued}`)).body.error.code).toBe('WORKSPACE_FORBIDDEN');
      for (const query of ['limit=0', 'limit=201', 'status=done', 'after=nope', 'agentId=x', 'color=red']) {
        expect((await viewer('GET', `${ws}/runs?${query}`)).status).toBe(400);
      }
      expect((await viewer('GET', `${ws}/runs/not-a-uuid`)).status).toBe(400);
    });
  });

  it('pauses and resumes agents with the kill switch, recording workspace.settings_changed', async () => {
    expect((await viewer('GET', `${ws}/settings`)).body).toEqual({ agentsPaused: false, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 } });
    const paused = await api('PUT', `${ws}/settings`, { agentsPaused: true });
    expect(paused).toMatchObject({ status: 200, body: { agentsPaused: true } });
    expect((await viewer('GET', `${ws}/settings`)).body).toEqual({ agentsPaused: true, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 } });
    expect((await pg.query('SELECT agents_paused FROM workspace_settings WHERE workspace_id = $1', [acmeId])).rows).toEqual([{ agents_paused: true }]);
    const [fact] = await factsAbout(acmeId, 'workspace.settings_changed');
    expect(fact).toMatchObject({ subject: { type: 'workspace', id: acmeId }, actor: { type: 'member', id: adminUserId }, payload: { agentsPaused: true } });
    // Another workspace is not paused by it.
    expect((await other('GET', '/v1/workspaces/other/settings')).body).toEqual({ agentsPaused: false, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 } });

    // While paused, nothing new is started, and nothing is written.
    const ended = await insertRun(agents.worker!, 'completed');
    const before = await snapshot();
    const manual = await member('POST', `${ws}/agents/${agents.manual}/runs`, { input: 'x' });
    expect(manual.status).toBe(409);
    expect(manual.body.error).toMatchObject({ code: 'AGENTS_PAUSED', details: { workspace: 'acme' } });
    expect((await member('POST', `${ws}/runs/${ended}/retry`)).body.error.code).toBe('AGENTS_PAUSED');
    expect(await snapshot()).toEqual(before);

    expect((await api('PUT', `${ws}/settings`, { agentsPaused: false })).body).toEqual({ agentsPaused: false, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 } });
    expect((await member('POST', `${ws}/agents/${agents.manual}/runs`, { input: 'x' })).status).toBe(201);
    const facts = await waitFor(async () => {
      const found = await factsAbout(acmeId, 'workspace.settings_changed');
      return found.length >= 2 ? found : undefined;
    });
    expect(facts.map((f: { payload: unknown }) => f.payload)).toEqual([
      { agentsPaused: true, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 }, changed: ['agentsPaused'] },
      { agentsPaused: false, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 }, changed: ['agentsPaused'] },
    ]);
  });

  it('saves only the settings a PUT names: the kill switch never re-opens approvals set to deny', async () => {
    expect((await api('PUT', `${ws}/settings`, { approvals: 'deny' })).body).toEqual({ agentsPaused: false, approvals: 'deny', retention: { factsDays: 90, transcriptsDays: 30 } });
    expect((await api('PUT', `${ws}/settings`, { agentsPaused: true })).body).toEqual({ agentsPaused: true, approvals: 'deny', retention: { factsDays: 90, transcriptsDays: 30 } });
    expect((await api('PUT', `${ws}/settings`, { agentsPaused: false })).body).toEqual({ agentsPaused: false, approvals: 'deny', retention: { factsDays: 90, transcriptsDays: 30 } });
    const before = await snapshot();
    for (const bad of [{}, { approvals: 'maybe' }, { agentsPaused: 'yes' }, { agentsPaused: false, extra: 1 }]) {
      const answer = await api('PUT', `${ws}/settings`, bad);
      expect(answer).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } });
    }
    expect(await snapshot()).toEqual(before);
    expect((await api('PUT', `${ws}/settings`, { approvals: 'enabled' })).body).toEqual({ agentsPaused: false, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 } });
  });

  it('sets and removes the workspace ceiling of runs at once (maxConcurrentRuns); other saves keep it', async () => {
    const retention = { factsDays: 90, transcriptsDays: 30 };
    expect((await api('PUT', `${ws}/settings`, { maxConcurrentRuns: 5 })).body).toEqual({ agentsPaused: false, approvals: 'enabled', retention, maxConcurrentRuns: 5 });
    expect((await api('PUT', `${ws}/settings`, { agentsPaused: false })).body).toEqual({ agentsPaused: false, approvals: 'enabled', retention, maxConcurrentRuns: 5 });
    for (const bad of [{ maxConcurrentRuns: 0 }, { maxConcurrentRuns: 2.5 }, { maxConcurrentRuns: '5' }]) {
      expect(await api('PUT', `${ws}/settings`, bad)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } });
    }
    expect((await api('GET', `${ws}/settings`)).body).toMatchObject({ maxConcurrentRuns: 5 });
    expect((await api('PUT', `${ws}/settings`, { maxConcurrentRuns: null })).body).toEqual({ agentsPaused: false, approvals: 'enabled', retention });
  });

  it('documents the routes in OpenAPI', async () => {
    const doc = (await apiClient(platform.gatewayUrl)('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([`/v1/workspaces/{ws}/runs`, `/v1/workspaces/{ws}/runs/{id}/stop`, `/v1/workspaces/{ws}/agents/{id}/runs`, `/v1/workspaces/{ws}/settings`]),
    );
    expect(doc.components.schemas.WorkspaceSettings.additionalProperties).toBe(false);
  });
});
