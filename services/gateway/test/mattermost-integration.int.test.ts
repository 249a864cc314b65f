import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { actionSigningKey, newSecretsKey, signActionContext } from '@switchyard/core';
import { apiClient, insertApproval, insertParkedRun, startLocalMattermostServer, startTestPlatform, type LocalMattermostServer, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

const ADMIN_TOKEN = 'operator-token-0123456789abcdef0123456789';

/**
 * Issue 16 (Mattermost, bull-board) at the gateway, over real HTTP against
 * the gateway process and a local server speaking Mattermost's API: the
 * notification settings API and its test post, link codes and the
 * `/switchyard` slash command, button callbacks refused when forged,
 * expired, unlinked or from a viewer (nothing decided), and the BullMQ
 * dashboard for the operator only.
 */
describe('Mattermost integration at the gateway', () => {
  const key = newSecretsKey();
  let platform: TestPlatform;
  let mattermost: LocalMattermostServer;
  let pg: Client;
  let admin: Api;
  let member: Api;
  let viewer: Api;
  let other: Api;
  let acmeId: string;
  const ws = '/v1/workspaces/acme';
  const commandToken = 'slash-token-abcdef';
  const channel = () => mattermost.newChannelId();
  const slash = (userId: string, text: string, token = commandToken) => mattermost.slashCommand(`${platform.gatewayUrl}/integrations/mattermost/commands/acme`, { token, userId, text });
  const link = async (api: Api, mattermostUserId: string) => {
    const code = await api('POST', `${ws}/integrations/mattermost/link-codes`);
    expect(code.status).toBe(201);
    return slash(mattermostUserId, `link ${code.body.code}`);
  };
  const callAction = (body: unknown) =>
    fetch(`${platform.gatewayUrl}/integrations/mattermost/actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  beforeAll(async () => {
    mattermost = await startLocalMattermostServer();
    platform = await startTestPlatform({ env: { SECRETS_KEY: key, NOTIFICATIONS_ALLOW_PRIVATE: 'true', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    member = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'm', role: 'member' })).body.token);
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'v', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    acmeId = (await pg.query("SELECT id FROM workspaces WHERE slug = 'acme'")).rows[0].id;
    expect((await admin('PUT', `${ws}/secrets/mm-bot`, { value: mattermost.botToken })).status).toBe(201);
    expect((await admin('PUT', `${ws}/secrets/mm-wrong`, { value: 'not-the-token' })).status).toBe(201);
    expect((await admin('PUT', `${ws}/secrets/mm-command`, { value: commandToken })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await mattermost?.close();
  });

  describe('settings/notifications', () => {
    it('shows the default rules before anything is saved, to viewers too', async () => {
      const got = await viewer('GET', `${ws}/settings/notifications`);
      expect(got.status).toBe(200);
      expect(got.body.connection).toBeNull();
      expect(got.body.rules.map((r: { kind: string }) => r.kind)).toEqual(['approval.requested', 'agent.run.failed', 'agent.run.dropped', 'workspace.settings_changed']);
    });

    it('refuses bad settings with a stable code and saves nothing', async () => {
      const good = { connection: { type: 'bot', serverUrl: mattermost.url, tokenSecret: 'mm-bot' }, defaultChannel: channel(), rules: [{ id: 'a', kind: 'x.*' }] };
      const cases: Array<[Api, unknown, number, string]> = [
        [member, good, 403, 'FORBIDDEN'],
        [viewer, good, 403, 'FORBIDDEN'],
        [admin, { ...good, connection: { ...good.connection, serverUrl: 'http://169.254.169.254/latest' } }, 400, 'OUTBOUND_URL_REFUSED'],
        [admin, { ...good, connection: { ...good.connection, serverUrl: 'file:///etc/passwd' } }, 400, 'VALIDATION_FAILED'],
        [admin, { ...good, defaultChannel: 'town-square' }, 400, 'VALIDATION_FAILED'],
        [admin, { ...good, rules: [{ id: 'a', kind: 'x.*' }, { id: 'a', kind: 'y' }] }, 400, 'VALIDATION_FAILED'],
        [admin, { ...good, rules: [{ id: 'a', kind: 'x.*', filter: { path: 'payload.a', op: 'matches', value: '(a+)+$' } }] }, 400, 'VALIDATION_FAILED'],
        [admin, { ...good, rules: 'all' }, 400, 'VALIDATION_FAILED'],
        [admin, { ...good, connection: { type: 'bot', serverUrl: mattermost.url, token: 'inline-secret' } }, 400, 'VALIDATION_FAILED'],
      ];
      for (const [api, body, status, code] of cases) {
        const answer = await api('PUT', `${ws}/settings/notifications`, body);
        expect([answer.status, answer.body.error?.code]).toEqual([status, code]);
      }
      expect((await other('PUT', `${ws}/settings/notifications`, good)).status).toBe(403);
      expect((await admin('GET', `${ws}/settings/notifications`)).body.connection).toBeNull();
    });

    it('sends a test post and reports what Mattermost answered', async () => {
      expect((await admin('POST', `${ws}/settings/notifications/test`, {})).body.error.code).toBe('NOTIFICATIONS_NOT_CONFIGURED');
      const target = channel();
      const saved = await admin('PUT', `${ws}/settings/notifications`, {
        connection: { type: 'bot', serverUrl: mattermost.url, tokenSecret: 'mm-bot', commandTokenSecret: 'mm-command' },
        defaultChannel: target,
        rules: [{ id: 'runs-failed', kind: 'agent.run.failed' }],
      });
      expect(saved.status).toBe(200);
      const ok = await admin('POST', `${ws}/settings/notifications/test`, {});
      expect(ok.body).toMatchObject({ ok: true, status: 201 });
      expect(mattermost.posts.get(ok.body.postId)?.channel_id).toBe(target);
      expect((await member('POST', `${ws}/settings/notifications/test`, {})).status).toBe(403);

      mattermost.fail(target, { status: 500 });
      expect((await admin('POST', `${ws}/settings/notifications/test`, {})).body).toMatchObject({ ok: false, status: 500 });
    });
  });

  describe('/switchyard', () => {
    it('refuses a wrong token, and tells an unlinked user to link', async () => {
      expect((await slash('mmuser0000000000000000000a', 'status', 'wrong')).status).toBe(401);
      const unlinked = await slash('mmuser0000000000000000000a', 'status');
      expect(unlinked.status).toBe(200);
      expect((unlinked.body as any).response_type).toBe('ephemeral');
      expect((unlinked.body as any).text).toContain('not linked');
    });

    it('reads its body like every route: a lying Content-Encoding, bad JSON or unstorable text is a 400, never a 5xx', async () => {
      const url = `${platform.gatewayUrl}/integrations/mattermost/commands/acme`;
      const post = (body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });
      const lying = await post(JSON.stringify({ text: 'status' }), { 'content-type': 'application/json', 'content-encoding': 'br' });
      expect(lying.status).toBe(400);
      expect(((await lying.json()) as any).error.code).toBe('BODY_ENCODING_INVALID');
      const formLying = await post('text=status', { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' });
      expect(((await formLying.json()) as any).error.code).toBe('BODY_ENCODING_INVALID');
      expect(((await (await post('{"text":', { 'content-type': 'application/json' })).json()) as any).error.code).toBe('MALFORMED_JSON');
      const nul = await post(`token=${commandToken}&user_id=mmuser0000000000000000000a&text=${encodeURIComponent('status\u0000')}`, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(nul.status).toBe(400);
    });

    it('links with a one-time code, then answers status, runs, approvals; pause and resume need admin', async () => {
      const linked = await link(viewer, 'mmviewer00000000000000000a');
      expect((linked.body as any).text).toContain('Linked');
      const code = (await member('POST', `${ws}/integrations/mattermost/link-codes`)).body.code;
      expect(((await slash('mmmember00000000000000000a', `link ${code}`)).body as any).text).toContain('Linked');
      expect(((await slash('mmmember00000000000000000b', `link ${code}`)).body as any).text).toContain('unknown, used or expired');
      expect(((await slash('mmviewer00000000000000000a', 'status')).body as any).text).toMatch(/agents running · 0 running · 0 queued/);
      expect(((await slash('mmviewer00000000000000000a', 'runs')).body as any).text).toBe('No runs yet.');
      expect(((await slash('mmviewer00000000000000000a', 'approvals')).body as any).text).toBe('No pending approvals.');
      expect(((await slash('mmviewer00000000000000000a', 'pause')).body as any).text).toContain('needs the admin role');
      expect(((await slash('mmmember00000000000000000a', 'approve not-an-id')).body as any).text).toContain('needs an approval id');
      expect((await admin('GET', `${ws}/settings`)).body.agentsPaused).toBe(false);

      await link(admin, 'mmadmin000000000000000000a');
      expect(((await slash('mmadmin000000000000000000a', 'pause')).body as any).text).toContain('paused');
      expect((await admin('GET', `${ws}/settings`)).body.agentsPaused).toBe(true);
      expect(((await slash('mmadmin000000000000000000a', 'resume')).body as any).text).toContain('**running** again');
      expect((await admin('GET', `${ws}/settings`)).body.agentsPaused).toBe(false);
      expect(((await slash('mmadmin000000000000000000a', 'bogus')).body as any).text).toContain('Usage');

      // A run parked on a wait for a fact is counted (issue 30), beside the other live statuses.
      await insertParkedRun(pg, { workspaceId: acmeId, agentId: randomUUID(), status: 'awaiting_event' });
      expect(((await slash('mmviewer00000000000000000a', 'status')).body as any).text).toMatch(/ · 0 running · 0 queued · 0 awaiting approval · 1 waiting for a fact · 0 pending approvals$/);
    });

    it('refuses link codes to agents of another workspace and to the wrong workspace', async () => {
      const foreign = (await other('POST', '/v1/workspaces/other/integrations/mattermost/link-codes')).body.code;
      expect(((await slash('mmforeign0000000000000000a', `link ${foreign}`)).body as any).text).toContain('unknown, used or expired');
      expect((await other('POST', `${ws}/integrations/mattermost/link-codes`)).status).toBe(403);
    });
  });

  describe('buttons', () => {
    let approvalId: string;
    const actionUrl = () => `${platform.gatewayUrl}/integrations/mattermost/actions`;
    const signed = (over: Partial<{ approvalId: string; workspace: string; decision: 'approve' | 'deny'; exp: number; url: string }> = {}) =>
      signActionContext(actionSigningKey(key), { approvalId, workspace: 'acme', decision: 'approve', exp: Date.now() + 60_000, url: actionUrl(), ...over });
    const status = async () => (await pg.query('SELECT status FROM approvals WHERE id = $1', [approvalId])).rows[0].status;

    beforeAll(async () => {
      // A parked run and its approval as the runner records them (the runner itself is not under test here).
      const agentId = randomUUID();
      const runId = await insertParkedRun(pg, { workspaceId: acmeId, agentId });
      approvalId = await insertApproval(pg, { workspaceId: acmeId, runId, agentId });
    });

    it('refuses a forged, tampered, expired, unlinked or viewer click, and decides nothing', async () => {
      const user = { user_id: 'mmmember00000000000000000a', post_id: 'p', channel_id: 'c' };
      const forged = { ...signed(), sig: 'A'.repeat(43) };
      expect((await callAction({ ...user, context: forged })).body.error.code).toBe('INTEGRATION_SIGNATURE_INVALID');
      const tampered = { ...signed({ decision: 'deny' }), decision: 'approve' };
      expect((await callAction({ ...user, context: tampered })).status).toBe(401);
      const otherKey = signActionContext(actionSigningKey(newSecretsKey()), { approvalId, workspace: 'acme', decision: 'approve', exp: Date.now() + 60_000 });
      expect((await callAction({ ...user, context: otherKey })).status).toBe(401);
      const expired = await callAction({ ...user, context: signed({ exp: Date.now() - 1_000 }) });
      expect([expired.status, expired.body.error.code]).toEqual([403, 'INTEGRATION_CONTEXT_EXPIRED']);
      const unlinked = await callAction({ ...user, user_id: 'mmnobody00000000000000000a', context: signed() });
      expect([unlinked.status, unlinked.body.error.code]).toEqual([403, 'INTEGRATION_USER_NOT_LINKED']);
      const byViewer = await callAction({ ...user, user_id: 'mmviewer00000000000000000a', context: signed() });
      expect([byViewer.status, byViewer.body.error.code]).toEqual([403, 'FORBIDDEN']);
      expect((await callAction({ ...user, context: 'not an object' })).status).toBe(401);
      expect((await callAction({ context: signed() })).status).toBe(400);
      // A button posted before confirmations (no url, no user) decides nothing any more.
      const { url: _url, ...old } = signed();
      const legacy = signActionContext(actionSigningKey(key), old);
      expect((await callAction({ ...user, context: legacy })).body.error.code).toBe('INTEGRATION_SIGNATURE_INVALID');
      expect(await status()).toBe('pending');
    });

    it('issue 36: a channel click asks the clicking user alone to confirm; only that user, linked to that member, decides, once', async () => {
      const memberUser = 'mmmember00000000000000000a';
      const channelId = channel();
      const asked = await callAction({ user_id: memberUser, post_id: 'p', channel_id: channelId, context: signed() });
      expect([asked.status, asked.body]).toEqual([200, {}]);
      expect(await status()).toBe('pending');
      const [confirmation] = mattermost.ephemeralFor(memberUser);
      expect(confirmation).toMatchObject({ channel_id: channelId });
      expect(mattermost.postsIn(channelId)).toEqual([]);
      const button = confirmation!.props.attachments![0]!.actions![0]!;
      expect(button).toMatchObject({ id: 'confirm', integration: { url: actionUrl(), context: { userId: memberUser, approvalId } } });
      const context = button.integration.context as Record<string, unknown>;

      // Re-targeted: another (linked, admin) Mattermost user sending the captured confirmation.
      const retargeted = await callAction({ user_id: 'mmadmin000000000000000000a', channel_id: channelId, context });
      expect([retargeted.status, retargeted.body.error.code]).toEqual([403, 'INTEGRATION_CONTEXT_USER_MISMATCH']);
      // Issued for another member than the one the user is linked to.
      const otherMember = signActionContext(actionSigningKey(key), { approvalId, workspace: 'acme', decision: 'approve', exp: Date.now() + 60_000, url: actionUrl(), userId: memberUser, memberId: randomUUID(), nonce: 'A'.repeat(22) });
      const moved = await callAction({ user_id: memberUser, channel_id: channelId, context: otherMember });
      expect([moved.status, moved.body.error]).toEqual([403, expect.objectContaining({ code: 'INTEGRATION_CONTEXT_USER_MISMATCH', details: { reason: 'member' } })]);
      // Tampered: the confirmation's user changed.
      expect((await callAction({ user_id: 'mmadmin000000000000000000a', channel_id: channelId, context: { ...context, userId: 'mmadmin000000000000000000a' } })).status).toBe(401);
      expect(await status()).toBe('pending');

      const clicked = await mattermost.click(confirmation!.id, 'confirm', { id: memberUser });
      expect(clicked.status).toBe(200);
      expect(await status()).toBe('approved');
      const linked = (await pg.query('SELECT decided_by FROM approvals WHERE id = $1', [approvalId])).rows[0].decided_by;
      const memberId = (context as { memberId: string }).memberId;
      expect(linked).toMatchObject({ type: 'member', userId: memberId });
      expect(mattermost.ephemeralFor(memberUser)[0]!.message).toContain('Approval approved');

      const replayed = await callAction({ user_id: memberUser, channel_id: channelId, context });
      expect([replayed.status, replayed.body.error.code]).toEqual([409, 'INTEGRATION_CONTEXT_REPLAYED']);
    });
  });

  describe('/admin/queues', () => {
    it('loads for the operator, and is refused to workspace admins and everyone else', async () => {
      const basic = `Basic ${Buffer.from(`operator:${ADMIN_TOKEN}`).toString('base64')}`;
      const page = await fetch(`${platform.gatewayUrl}/admin/queues`, { headers: { authorization: basic } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const queues = await fetch(`${platform.gatewayUrl}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(queues.status).toBe(200);
      const names = ((await queues.json()) as { queues: Array<{ name: string }> }).queues.map((q) => q.name).sort();
      expect(names).toEqual(['activations', 'approval-expiry', 'notifications']);

      const adminToken = (await admin('POST', `${ws}/tokens`, { name: 'a2', role: 'admin' })).body.token as string;
      for (const authorization of [`Bearer ${adminToken}`, `Basic ${Buffer.from(`x:${adminToken}`).toString('base64')}`, `Bearer ${ADMIN_TOKEN}x`, '']) {
        for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/favicon.ico']) {
          const refused = await fetch(`${platform.gatewayUrl}${path}`, { headers: authorization ? { authorization } : {} });
          expect([path, refused.status]).toEqual([path, 401]);
        }
      }
    });
  });
});
