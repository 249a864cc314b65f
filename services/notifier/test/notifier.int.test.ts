import { randomUUID } from 'node:crypto';
import { approvalFact } from '@switchyard/core';
import { recordFacts, SqlPool } from '@switchyard/db';
import { insertApproval, insertParkedRun, waitFor } from '@switchyard/testing';
import { startNotifierPlatform, type NotifierPlatform, type TestWorkspace } from './notifier-platform';

/**
 * Issue 16 (the Mattermost bot): facts posted to the gateway reach the right
 * Mattermost channels through each workspace's rules and nothing else; a 429
 * is retried after its Retry-After; a channel that keeps failing does not
 * delay another workspace; a notifier SIGKILLed mid-delivery posts every
 * notification exactly once.
 */
describe('notifier', () => {
  let env: NotifierPlatform;
  let acme: TestWorkspace;
  let globex: TestWorkspace;
  const names = ['scores', 'deploys', 'globex', 'limited', 'broken', 'healthy', 'crash', 'approvals'] as const;
  const channels = {} as Record<(typeof names)[number], string>;

  const settings = (ws: TestWorkspace, rules: unknown[], defaultChannel: string | null = null) =>
    ws.admin('PUT', `/v1/workspaces/${ws.slug}/settings/notifications`, {
      connection: { type: 'bot', serverUrl: env.mattermost.url, tokenSecret: 'mm-bot' },
      defaultChannel,
      rules,
    });
  const post = async (ws: TestWorkspace, kind: string, payload: Record<string, unknown> = {}, subject = 'x') => {
    const answer = await ws.admin('POST', `/v1/workspaces/${ws.slug}/events`, { kind, subject: { type: 'thing', id: subject }, payload });
    expect(answer.status).toBe(202);
    return answer.body.id as string;
  };

  beforeAll(async () => {
    env = await startNotifierPlatform();
    acme = await env.workspace('acme');
    globex = await env.workspace('globex');
    for (const name of names) channels[name] = env.mattermost.newChannelId();
  }, 120_000);
  afterAll(async () => {
    await env?.stop();
  });

  it('routes each fact to the channels of the rules it matches, and nothing else', async () => {
    expect(
      (
        await settings(acme, [
          { id: 'low-scores', kind: 'scorecard.*', filter: { path: 'payload.score', op: 'lt', value: 50 }, channel: channels.scores, template: 'Low score {{payload.score}} on {{subject.id}} by {{payload.by}}' },
          { id: 'deploys', kind: 'deploy.failed', channel: channels.deploys },
        ])
      ).status,
    ).toBe(200);
    expect((await settings(globex, [{ id: 'all-scores', kind: 'scorecard.**', channel: channels.globex }])).status).toBe(200);

    const low = await post(acme, 'scorecard.completed', { score: 30, by: '@all' }, 'svc-a');
    await post(acme, 'scorecard.completed', { score: 80 }, 'svc-b');
    await post(acme, 'deploy.succeeded', {}, 'svc-c');
    const failed = await post(acme, 'deploy.failed', { reason: 'health check' }, 'svc-d');
    const other = await post(globex, 'scorecard.completed', { score: 99 }, 'svc-e');

    await waitFor(async () => (await env.deliveries(acme.id)) === 2 && (await env.deliveries(globex.id)) === 1, { what: 'three deliveries' });
    const scores = env.mattermost.postsIn(channels.scores);
    expect(scores.map((p) => p.message)).toEqual(['Low score 30 on svc-a by @\u200ball']);
    expect(env.mattermost.postsIn(channels.deploys)).toHaveLength(1);
    expect(env.mattermost.postsIn(channels.deploys)[0]!.message).toContain('health check');
    expect(env.mattermost.postsIn(channels.globex)).toHaveLength(1);
    const recorded = (await env.pg.query('SELECT fact_id::text AS f, rule_id AS r FROM notification_deliveries ORDER BY rule_id')).rows;
    expect(recorded).toEqual(
      expect.arrayContaining([
        { f: low, r: 'low-scores' },
        { f: failed, r: 'deploys' },
        { f: other, r: 'all-scores' },
      ]),
    );
    // Nothing else arrives later: the two unmatched facts of acme were read (the group is past them) and posted nothing.
    await post(acme, 'deploy.failed', { reason: 'marker' }, 'svc-f');
    await waitFor(async () => (await env.deliveries(acme.id)) === 3, { what: 'the marker delivered' });
    expect(env.mattermost.postsIn(channels.scores)).toHaveLength(1);
    expect(env.mattermost.posts.size).toBe(4);
  });

  it('retries a 429 after its Retry-After, without losing the post', async () => {
    await settings(acme, [{ id: 'limited', kind: 'limit.hit', channel: channels.limited }]);
    env.mattermost.fail(channels.limited, { status: 429, retryAfterSeconds: 2 });
    await post(acme, 'limit.hit');
    await waitFor(async () => env.mattermost.postsIn(channels.limited).length === 1, { what: 'the post after the 429' });
    const attempts = env.mattermost.requests.filter((r) => r.channelId === channels.limited);
    expect(attempts.map((r) => r.status)).toEqual([429, 201]);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(1_950);
  });

  it('keeps posting for another workspace while one channel keeps failing', async () => {
    await settings(acme, [{ id: 'broken', kind: 'broken.thing', channel: channels.broken }]);
    await settings(globex, [{ id: 'healthy', kind: 'healthy.thing', channel: channels.healthy }]);
    env.mattermost.failAlways(channels.broken, 500);
    for (let i = 0; i < 20; i++) await post(acme, 'broken.thing', { i }, `b-${i}`);
    await waitFor(async () => env.mattermost.requests.filter((r) => r.channelId === channels.broken).length >= 3, { what: 'the broken channel failing' });
    const started = Date.now();
    for (let i = 0; i < 5; i++) await post(globex, 'healthy.thing', { i }, `h-${i}`);
    await waitFor(async () => env.mattermost.postsIn(channels.healthy).length === 5, { what: 'the healthy posts', timeoutMs: 15_000 });
    // Loaded machine: generous, but far below the broken channel's backoff growing for the rest of the test.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(env.mattermost.postsIn(channels.broken)).toHaveLength(0);
    env.mattermost.heal(channels.broken);
    await waitFor(async () => env.mattermost.postsIn(channels.broken).length === 20, { what: 'the broken channel catching up', timeoutMs: 60_000 });
  }, 90_000);

  it('posts every notification once when the notifier is SIGKILLed mid-delivery', async () => {
    await settings(acme, [{ id: 'crash', kind: 'crash.test', channel: channels.crash }]);
    // Posts are made at once and answered late: the kill lands after Mattermost made them, before the notifier recorded them.
    env.mattermost.delay(channels.crash, 1_500);
    const count = 12;
    for (let i = 0; i < count; i++) await post(acme, 'crash.test', { i }, `c-${i}`);
    await waitFor(async () => env.mattermost.postsIn(channels.crash).length >= 3, { what: 'deliveries in flight' });
    await env.notifier.stop('SIGKILL');
    env.mattermost.delay(channels.crash, 0);
    env.notifier = await env.startNotifier();
    await waitFor(async () => Number((await env.pg.query("SELECT count(*) FROM notification_deliveries WHERE rule_id = 'crash'")).rows[0].count) === count, {
      what: 'every crash delivery recorded',
      timeoutMs: 60_000,
    });
    const posts = env.mattermost.postsIn(channels.crash);
    expect(posts).toHaveLength(count);
    expect(new Set(posts.map((p) => p.message)).size).toBe(count);
  }, 90_000);

  it('posts an approval with buttons; Approve, confirmed by the clicking user, decides it and the post is updated; a decision by API updates its post', async () => {
    expect((await acme.admin('PUT', '/v1/workspaces/acme/secrets/mm-command', { value: 'slash-secret' })).status).toBe(201);
    const saved = await acme.admin('PUT', '/v1/workspaces/acme/settings/notifications', {
      connection: { type: 'bot', serverUrl: env.mattermost.url, tokenSecret: 'mm-bot', commandTokenSecret: 'mm-command' },
      defaultChannel: channels.approvals,
      rules: [{ id: 'approvals-requested', kind: 'approval.requested' }],
    });
    expect(saved.status).toBe(200);
    const code = (await acme.admin('POST', '/v1/workspaces/acme/integrations/mattermost/link-codes')).body.code;
    const linked = await env.mattermost.slashCommand(`${env.platform.gatewayUrl}/integrations/mattermost/commands/acme`, { token: 'slash-secret', userId: 'mmadmin000000000000000000a', text: `link ${code}` });
    expect((linked.body as { text: string }).text).toContain('Linked');

    // Two approvals parked as the runner parks them, their `approval.requested` facts recorded through the outbox.
    const sql = new SqlPool({ databaseUrl: env.platform.db.url, poolMax: 1, applicationName: 'test' });
    const agentId = randomUUID();
    const park = async () => {
      const runId = await insertParkedRun(env.pg, { workspaceId: acme.id, agentId });
      const id = await insertApproval(env.pg, { workspaceId: acme.id, runId, agentId });
      const approval = (await acme.admin('GET', `/v1/workspaces/acme/approvals/${id}`)).body;
      const author = { workspaceId: acme.id, workspaceSlug: 'acme', actor: { type: 'system' as const, id: 'runner' } };
      await recordFacts(sql, [{ fact: approvalFact(author, 'approval.requested', approval, { runId, agentId, depth: 0 }), correlationId: 'test' }]);
      return id;
    };
    const clicked = await park();
    const byApi = await park();
    await sql.$disconnect();
    const postOf = (id: string) => env.mattermost.postsIn(channels.approvals).find((p) => p.message.includes(id));
    await waitFor(async () => postOf(clicked) && postOf(byApi), { what: 'both approval posts', timeoutMs: 30_000 });
    const buttons = postOf(clicked)!.props.attachments![0]!.actions!.map((a) => a.id);
    expect(buttons).toEqual(['approve', 'deny']);

    const click = await env.mattermost.click(postOf(clicked)!.id, 'approve', { id: 'mmadmin000000000000000000a' });
    expect(click.status).toBe(200);
    // The channel's button asks the clicking user alone to confirm (decision 0043); the confirmation decides.
    expect((await env.pg.query('SELECT status FROM approvals WHERE id = $1', [clicked])).rows[0].status).toBe('pending');
    const [confirmation] = env.mattermost.ephemeralFor('mmadmin000000000000000000a');
    expect((await env.mattermost.click(confirmation!.id, 'confirm', { id: 'mmadmin000000000000000000a' })).status).toBe(200);
    expect((await env.pg.query('SELECT status FROM approvals WHERE id = $1', [clicked])).rows[0].status).toBe('approved');
    await waitFor(async () => postOf(clicked)!.message.includes('Approval approved'), { what: 'the channel post updated from the decision', timeoutMs: 30_000 });
    expect(postOf(clicked)!.props.attachments![0]!.actions).toBeUndefined();
    // An unlinked user is refused, and the other approval stays pending.
    expect((await env.mattermost.click(postOf(byApi)!.id, 'deny', { id: 'mmnobody00000000000000000a' })).status).toBe(403);

    expect((await acme.admin('POST', `/v1/workspaces/acme/approvals/${byApi}/decision`, { decision: 'deny', note: 'not today' })).status).toBe(200);
    await waitFor(async () => postOf(byApi)!.message.includes('Approval denied'), { what: 'the post updated from the API decision', timeoutMs: 30_000 });
    expect(JSON.stringify(postOf(byApi)!.props)).toContain('not today');
    expect(postOf(byApi)!.props.attachments![0]!.actions).toBeUndefined();
  }, 90_000);
});
