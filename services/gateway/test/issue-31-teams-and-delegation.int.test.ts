import { randomUUID } from 'node:crypto';
import { mailboxStream } from '@switchyard/contracts';
import { toKey } from '@switchyard/redis';
import { apiClient, setRunColumns, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, connectMcp } from './mcp-client';
import { agentSpec, AgentSessions, type AgentSession, type Api } from './team-helpers';

/**
 * Issue 31, items 4–7 (decision 0059), against a real gateway, event-log and
 * matcher as processes: `send_message` to a team, GET /teams; parent ↔ child
 * messages through the runs' mailboxes; the collaborators' limits (parentScope,
 * maxChildren); and why a teammate was or was not woken by a fact.
 */
describe('issue 31: teams, two-way delegation and the delegation limits', () => {
  let platform: TestPlatform;
  let sessions: AgentSessions;
  let admin: Api;
  let other: Api;
  let acmeId: string;
  let otherId: string;
  let agents: Record<'mate' | 'lead' | 'helper' | 'scoped' | 'narrow' | 'theirs', string>;
  const ws = '/v1/workspaces/acme';
  const open: McpClient[] = [];

  const mailboxEntries = async (sessionId: string) => {
    const entries = await platform.redis.redis.xrange(toKey(platform.redis.prefix, ...mailboxStream(sessionId)), '-', '+');
    return entries.map(([, fields]) => JSON.parse(fields[1]!));
  };
  const mcpOf = async (session: AgentSession) => {
    const client = await connectMcp(platform.gatewayUrl, session.token);
    open.push(client);
    return client;
  };
  const spawn = async (name: string, team: string | undefined, watch: unknown[] = []) => {
    const response = await admin('POST', `${ws}/teammates`, { name, agentId: agents.mate, watch, ...(team ? { team } : {}) });
    expect(response.status).toBe(201);
    return response.body as { id: string; sessionId: string };
  };
  const count = async (table: string) => Number((await sessions.db.query(`SELECT count(*) FROM ${table}`)).rows[0].count);

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    sessions = new AgentSessions(platform);
    await sessions.connect();
    acmeId = await sessions.workspaceId('acme');
    otherId = await sessions.workspaceId('other');
    const make = async (api: Api, slug: string, name: string, extra: Record<string, unknown> = {}) =>
      (await api('POST', `/v1/workspaces/${slug}/agents`, { ...agentSpec(name), ...extra })).body.id as string;
    agents = {
      mate: await make(admin, 'acme', 'mate'),
      lead: await make(admin, 'acme', 'lead', { tools: { platform: ['send_message', 'delegate_to_agent'] } }),
      helper: await make(admin, 'acme', 'helper', { tools: { platform: ['emit_event', 'send_message'] } }),
      scoped: await make(admin, 'acme', 'scoped', { tools: { platform: ['emit_event', 'delegate_to_agent'] } }),
      narrow: await make(admin, 'acme', 'narrow', { tools: { platform: ['delegate_to_agent'] }, budget: { maxChildren: 2 } }),
      theirs: await make(other, 'other', 'theirs'),
    };
    for (const from of [agents.lead, agents.scoped, agents.narrow]) {
      expect((await admin('PUT', `${ws}/agents/${from}/collaborators/${agents.helper}`, { enabled: true })).status).toBe(200);
    }
  }, 180_000);
  afterAll(async () => {
    for (const client of open) await client.close();
    await sessions?.close();
    await platform?.stop();
  });

  it('to "team:x" reaches each live member once, never the sender or a stopped member; GET /teams and /teams/{name} show it', async () => {
    const ana = await spawn('ana', 'x');
    const bo = await spawn('bo', 'x');
    const cy = await spawn('cy', 'x');
    const dee = await spawn('dee', 'y');
    expect((await admin('POST', `${ws}/teammates/cy/stop`)).status).toBe(200);
    // A turn of ana's (a run in her session) messages her own team.
    const anaTurn = await sessions.start(acmeId, agents.mate, 0, ana.sessionId);
    const sent = await callTool(await mcpOf(anaTurn), 'send_message', { to: ['team:x', 'bo'], content: 'standup at 10' });
    expect(sent.isError).toBe(false);
    expect(sent.body.delivered.map((d: { to: string }) => d.to)).toEqual(['bo']);
    const toBo = await mailboxEntries(bo.sessionId);
    expect(toBo).toHaveLength(1);
    expect(toBo[0]).toMatchObject({ content: 'standup at 10', from: { type: 'agent', agentId: agents.mate, runId: anaTurn.runId, teammate: 'ana' } });
    expect(await mailboxEntries(ana.sessionId)).toEqual([]);
    expect(await mailboxEntries(cy.sessionId)).toEqual([]);
    expect(await mailboxEntries(dee.sessionId)).toEqual([]);

    // A person's message to the team: each live member once.
    const person = await connectMcp(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'me', role: 'member' })).body.token);
    open.push(person);
    const fromPerson = await callTool(person, 'send_message', { to: 'team:x', content: 'lunch' });
    expect(fromPerson.body.delivered.map((d: { to: string }) => d.to).sort()).toEqual(['ana', 'bo']);
    expect((await mailboxEntries(ana.sessionId)).map((e) => e.content)).toEqual(['lunch']);
    expect((await mailboxEntries(cy.sessionId)).map((e) => e.content)).toEqual([]);

    const teams = await admin('GET', `${ws}/teams`);
    expect(teams.status).toBe(200);
    expect(teams.body.teams.find((t: { name: string }) => t.name === 'x')).toMatchObject({ name: 'x', members: 3, live: 2 });
    expect(teams.body.teams.find((t: { name: string }) => t.name === 'y')).toMatchObject({ name: 'y', members: 1, live: 1 });
    const x = await admin('GET', `${ws}/teams/x`);
    expect(x.status).toBe(200);
    expect(x.body.teammates.map((m: { name: string; status: string }) => [m.name, m.status === 'stopped'])).toEqual([
      ['ana', false],
      ['bo', false],
      ['cy', true],
    ]);
  }, 60_000);

  it('refuses an unknown or emptied team, more than 5 recipients, another workspace\'s team, and bad input — delivering and writing nothing', async () => {
    const lone = await spawn('lone', 'solo');
    expect((await admin('POST', `${ws}/teammates/lone/stop`)).status).toBe(200);
    for (let i = 0; i < 6; i++) await spawn(`big${i}`, 'big');
    const person = await connectMcp(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'me2', role: 'member' })).body.token);
    open.push(person);
    const factsBefore = await platform.factsRecorded();
    const cases: Array<[unknown, string, string | undefined]> = [
      ['team:nobody', 'MESSAGE_RECIPIENT_UNREACHABLE', 'unknown'],
      ['team:solo', 'MESSAGE_RECIPIENT_UNREACHABLE', 'team_empty'],
      ['team:big', 'MESSAGE_RECIPIENT_UNREACHABLE', 'too_many'],
      [['bo', 'team:nobody'], 'MESSAGE_RECIPIENT_UNREACHABLE', 'unknown'],
      ['', 'VALIDATION_FAILED', undefined],
      [`team:${'x'.repeat(70)}`, 'VALIDATION_FAILED', undefined],
    ];
    for (const [to, code, reason] of cases) {
      const refused = await callTool(person, 'send_message', { to, content: 'hi' });
      expect({ to, isError: refused.isError, code: refused.body.error.code, reason: refused.body.error.details?.reason }).toEqual({ to, isError: true, code, reason });
    }
    for (let i = 0; i < 6; i++) expect(await mailboxEntries((await admin('GET', `${ws}/teammates/big${i}`)).body.sessionId)).toEqual([]);
    expect(await mailboxEntries(lone.sessionId)).toEqual([]);
    expect(await platform.factsRecorded()).toBe(factsBefore);

    expect((await other('GET', '/v1/workspaces/other/teams/x')).body.error.code).toBe('TEAM_NOT_FOUND');
    expect((await other('GET', '/v1/workspaces/other/teams')).body.teams).toEqual([]);
    expect((await other('GET', `${ws}/teams/x`)).body.error.code).toBe('WORKSPACE_FORBIDDEN');
    const tooLong = await admin('GET', `${ws}/teams/${'x'.repeat(65)}`);
    expect([tooLong.status, tooLong.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  }, 60_000);

  it('parent ↔ child messages both ways, attributed; to a finished child the typed soft error naming its state', async () => {
    const lead = await sessions.start(acmeId, agents.lead);
    const leadMcp = await mcpOf(lead);
    const child = (await callTool(leadMcp, 'delegate_to_agent', { target: 'helper', objective: 'Count the bugs' })).body;
    await setRunColumns(sessions.db, child.id, { status: 'running', started_at: new Date() });
    const helper = await sessions.tokenFor(acmeId, { id: child.id, agentId: agents.helper, sessionId: child.sessionId, depth: 1 });
    const helperMcp = await mcpOf(helper);

    const down = await callTool(leadMcp, 'send_message', { to: child.id, content: 'only the auth module' });
    expect(down).toMatchObject({ isError: false, body: { delivered: [{ to: child.id, woke: false }] } });
    const toChild = (await mailboxEntries(child.sessionId)).filter((e) => e.from.type === 'agent');
    expect(toChild).toEqual([expect.objectContaining({ content: 'only the auth module', from: { type: 'agent', agentId: agents.lead, name: 'lead', runId: lead.runId } })]);

    const up = await callTool(helperMcp, 'send_message', { to: 'parent', content: 'found 2 so far' });
    expect(up).toMatchObject({ isError: false, body: { delivered: [{ to: 'parent' }] } });
    expect(await mailboxEntries(lead.sessionId)).toEqual([
      expect.objectContaining({ content: 'found 2 so far', from: { type: 'agent', agentId: agents.helper, name: 'helper', runId: child.id } }),
    ]);
    // The parent's run id names it too.
    expect((await callTool(helperMcp, 'send_message', { to: lead.runId, content: 'and a third' })).isError).toBe(false);

    const sent = await waitFor(
      async () => {
        const response = await admin('GET', `${ws}/events?kind=message.sent&limit=1000`);
        const mine = response.body.events.filter((f: { causedBy?: { runId: string } }) => f.causedBy?.runId === lead.runId || f.causedBy?.runId === child.id);
        return mine.length >= 3 ? mine : undefined;
      },
      { what: 'the run messages recorded as message.sent', timeoutMs: 30_000 },
    );
    expect(sent.map((f: { payload: { sessionId: string } }) => f.payload.sessionId).sort()).toEqual([child.sessionId, lead.sessionId, lead.sessionId].sort());

    await setRunColumns(sessions.db, child.id, { status: 'completed', ended_at: new Date(), outcome: { summary: 'done', turns: 1, toolCalls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 } });
    const before = (await mailboxEntries(child.sessionId)).length;
    const late = await callTool(leadMcp, 'send_message', { to: child.id, content: 'one more thing' });
    expect(late.isError).toBe(true);
    expect(late.body.error).toMatchObject({ code: 'MESSAGE_RECIPIENT_UNREACHABLE', details: { to: child.id, reason: 'ended', finalState: 'completed' } });
    expect(await mailboxEntries(child.sessionId)).toHaveLength(before);
  }, 90_000);

  it("another workspace's run, a run that is not its child, and no parent: refused unknown, nothing delivered", async () => {
    const lead = await sessions.start(acmeId, agents.lead);
    const leadMcp = await mcpOf(lead);
    const theirs = await sessions.start(otherId, agents.theirs);
    const stranger = await sessions.start(acmeId, agents.helper);
    for (const to of [theirs.runId, stranger.runId, 'parent', randomUUID()]) {
      const refused = await callTool(leadMcp, 'send_message', { to, content: 'hello?' });
      expect({ to, code: refused.body.error.code, reason: refused.body.error.details.reason }).toEqual({ to, code: 'MESSAGE_RECIPIENT_UNREACHABLE', reason: 'unknown' });
    }
    expect(await mailboxEntries(theirs.sessionId)).toEqual([]);
    expect(await mailboxEntries(stranger.sessionId)).toEqual([]);
  }, 60_000);

  it('parentScope: the child of a parent without emit_event cannot call it though its own spec has it; under one that has it, it can', async () => {
    const factsBefore = await platform.factsRecorded();
    for (const [parentAgent, allowed] of [[agents.lead, false], [agents.scoped, true]] as const) {
      const parent = await sessions.start(acmeId, parentAgent);
      const child = (await callTool(await mcpOf(parent), 'delegate_to_agent', { target: 'helper', objective: 'Emit it' })).body;
      const helper = await sessions.tokenFor(acmeId, { id: child.id, agentId: agents.helper, sessionId: child.sessionId, depth: 1 });
      const helperMcp = await mcpOf(helper);
      // What its runner lists (and so offers its model) is narrowed alike: the parent's send_message is there only under lead.
      const listed = (await helperMcp.listTools()).tools.map((tool) => tool.name);
      expect(listed.includes('emit_event')).toBe(allowed);
      expect(listed.includes('send_message')).toBe(!allowed);
      const emitted = await callTool(helperMcp, 'emit_event', { kind: 'bugs.counted', subject: { type: 'repo', id: 'r1' } });
      if (allowed) {
        expect(emitted.isError).toBe(false);
      } else {
        expect(emitted.isError).toBe(true);
        expect(emitted.body.error).toMatchObject({ code: 'TOOL_OUT_OF_SCOPE', details: { tool: 'emit_event', runId: parent.runId } });
      }
    }
    // Only the allowed child's fact was recorded (the outbox relays it).
    await waitFor(async () => ((await platform.factsRecorded()) > factsBefore ? true : undefined), { what: 'the allowed fact', timeoutMs: 30_000 });
    const facts = (await admin('GET', `${ws}/events?kind=bugs.counted&limit=100`)).body.events;
    expect(facts).toHaveLength(1);
  }, 60_000);

  it('the sixth delegation of a run is refused fan_out_cap (maxChildren 5 by default); an agent\'s own maxChildren is its cap', async () => {
    const runs = () => count('runs');
    for (const [agent, max] of [[agents.lead, 5], [agents.narrow, 2]] as const) {
      const parent = await sessions.start(acmeId, agent);
      const client = await mcpOf(parent);
      for (let i = 0; i < max; i++) expect((await callTool(client, 'delegate_to_agent', { target: 'helper', objective: `job ${i}` })).isError).toBe(false);
      const before = await runs();
      const refused = await callTool(client, 'delegate_to_agent', { target: 'helper', objective: 'one too many' });
      expect(refused.body.error).toMatchObject({ code: 'DELEGATION_REFUSED', details: { reason: 'fan_out_cap', max } });
      expect(await runs()).toBe(before);
      // Another run of the same agent has its own count.
      const sibling = await sessions.start(acmeId, agent);
      expect((await callTool(await mcpOf(sibling), 'delegate_to_agent', { target: 'helper', objective: 'mine' })).isError).toBe(false);
    }
    const bad = await admin('POST', `${ws}/agents`, { ...agentSpec('greedy'), budget: { maxChildren: 51 } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  }, 60_000);

  it("why didn't teammate X wake: delivered, no_match per watch entry, stopped, self_caused, depth_exceeded, cooldown", async () => {
    // After the roster's facts are relayed, so that the bridge's index holds the teammates spawned before.
    const post = async (api: Api, env: string, kind = 'deploy.done') => {
      await platform.factsRecorded();
      return (await api('POST', `${ws}/events`, { kind, subject: { type: 'svc', id: 'api' }, payload: { env } })).body.id as string;
    };
    await spawn('w-hit', undefined, [{ kind: 'deploy.*' }]);
    await spawn('w-miss', undefined, [{ kind: 'build.*' }, { kind: 'deploy.*', filter: { path: 'payload.env', op: 'eq', value: 'prod' } }]);
    await spawn('w-stop', undefined, [{ kind: 'deploy.*' }]);
    expect((await admin('POST', `${ws}/teammates/w-stop/stop`)).status).toBe(200);
    const cool = await spawn('w-cool', undefined, [{ kind: 'deploy.*', cooldownMs: 600_000 }]);
    const self = await spawn('w-self', undefined, [{ kind: 'deploy.*' }]);
    const early = await post(admin, 'staging', 'deploy.early');
    // Spawned after that fact in the fact order: the bridge's index did not hold it yet.
    await spawn('w-late', undefined, [{ kind: 'deploy.*' }]);
    await platform.factsRecorded();

    const outcomes = (body: { teammates: Array<{ name: string; outcome: string; reason?: string }> }) =>
      Object.fromEntries(body.teammates.filter((t) => t.name.startsWith('w-')).map((t) => [t.name, t.reason ?? t.outcome]));
    // The bridge saves its cursor before its deliveries commit: wait for the answer expected, then compare all of it.
    const activations = async (eventId: string, expected: Record<string, string>) => {
      let last: unknown;
      const body = await waitFor(
        async () => {
          const response = await admin('GET', `${ws}/events/${eventId}/activations`);
          last = response.body;
          const seen = response.status === 200 ? outcomes(response.body) : {};
          return Object.entries(expected).every(([name, outcome]) => seen[name] === outcome) ? response.body : undefined;
        },
        { what: `the teammates' activations of ${eventId}`, timeoutMs: 30_000 },
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; last answer ${JSON.stringify(last)}`);
      });
      return body;
    };

    expect((await activations(early, { 'w-late': 'not_spawned_yet' })).teammates.find((t: { name: string }) => t.name === 'w-late').outcome).toBe('not_spawned_yet');
    const expectedFirst = { 'w-hit': 'delivered', 'w-miss': 'no_match', 'w-stop': 'stopped', 'w-cool': 'delivered', 'w-self': 'delivered', 'w-late': 'delivered' };
    const first = await activations(await post(admin, 'staging'), expectedFirst);
    expect(outcomes(first)).toEqual(expectedFirst);
    const miss = first.teammates.find((t: { name: string }) => t.name === 'w-miss');
    expect(miss.watch).toEqual([
      { index: 0, kind: 'build.*', kindMatched: false },
      { index: 1, kind: 'deploy.*', kindMatched: true, filter: expect.objectContaining({ seen: 'staging' }) },
    ]);
    expect(first.teammates.find((t: { name: string }) => t.name === 'w-hit')).toMatchObject({ outcome: 'delivered', messageId: expect.any(String) });

    // Posted by one of w-self's turns: its own cause. The second deploy fact is within w-cool's cooldown.
    const selfTurn = await sessions.start(acmeId, agents.mate, 0, self.sessionId);
    const second = await activations(await post(selfTurn.api, 'staging'), { 'w-hit': 'delivered', 'w-cool': 'cooldown', 'w-self': 'self_caused', 'w-stop': 'stopped' });
    expect(cool.id).toBeDefined();

    // A fact at the causation depth cap (MAX_CAUSATION_DEPTH 5: posted by a run at depth 4).
    const deep = await sessions.start(acmeId, agents.mate, 4);
    const third = await activations(await post(deep.api, 'staging'), { 'w-hit': 'depth_exceeded', 'w-self': 'depth_exceeded', 'w-miss': 'no_match' });
    expect(third.teammates.every((t: { outcome: string }) => t.outcome !== 'delivered')).toBe(true);

    // Another workspace's fact is not found.
    expect((await other('GET', `/v1/workspaces/other/events/${second.eventId}/activations`)).body.error.code).toBe('EVENT_NOT_FOUND');
  }, 90_000);
});
