import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newSecretsKey } from '@switchyard/core';
import {
  apiClient,
  spawnService,
  startLocalMattermostServer,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type LocalMattermostServer,
  type ServiceProcess,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';
import { openStream, within } from '../open-stream';
import { runAdmin } from '../../../../scripts/test/lib/operator-processes';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'crew';
const base = `/v1/workspaces/${WS}`;
const BEA = 'Bea Example';

/**
 * Issue 36, item 1 (decision 0042), end to end: real gateway, event-log,
 * matcher, runner and notifier processes, the local Mattermost stand-in, and
 * two people in headless Chromium. The admin invites from the Members page;
 * the invitee opens the link, chooses her name and is in; she approves a
 * parked run in the inbox; the approval, its fact's actor, the UI and the
 * Mattermost post all name her. The admin removes her from the Members page
 * and her open event stream closes within 5 s.
 */
describe('issue 36: invite, join, approve, remove — people by name (headless Chromium, real processes)', () => {
  let mattermost: LocalMattermostServer;
  let mcp: TestMcpHttpServer;
  let platform: TestPlatform;
  let notifier: ServiceProcess;
  let browser: Browser;
  let adminPage: Page;
  let beaContext: BrowserContext;
  let beaPage: Page;
  let admin: ReturnType<typeof apiClient>;
  let channel: string;
  let beaId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    mattermost = await startLocalMattermostServer();
    mcp = await startTestMcpServer();
    platform = await startTestPlatform({
      matcher: true,
      runners: 1,
      env: { SECRETS_KEY: newSecretsKey(), NOTIFICATIONS_ALLOW_PRIVATE: 'true', RUNNER_MCP_ALLOW_PRIVATE: 'true', STREAM_AUTH_RECHECK_MS: '1000' },
    });
    notifier = await spawnService(
      'notifier',
      { ...platform.env, NOTIFIER_HEALTH_PORT: '0', NOTIFIER_CONSUMER: `n-${Date.now()}`, NOTIFIER_ACTION_URL: `${platform.gatewayUrl}/integrations/mattermost/actions`, NOTIFIER_BACKOFF_MS: '200' },
      { readyPattern: /notifier started/ },
    );
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    channel = mattermost.newChannelId();
    expect((await admin('PUT', `${base}/secrets/mm-bot`, { value: mattermost.botToken })).status).toBe(201);
    const saved = await admin('PUT', `${base}/settings/notifications`, {
      connection: { type: 'bot', serverUrl: mattermost.url, tokenSecret: 'mm-bot' },
      defaultChannel: channel,
      rules: [{ id: 'approvals', kind: 'approval.requested' }],
    });
    expect(saved.status).toBe(200);
    const agent = await admin('POST', `${base}/agents`, {
      name: 'deployer',
      instructions: 'Deploy what is asked.',
      model: { provider: 'scripted', name: 'script', params: { stepMs: 50 } },
      script: [{ say: 'deploying', tool: 'web.echo', arguments: { text: 'deploy 2.0' } }, { say: 'deployed' }],
      triggers: [{ kind: 'deploy.requested' }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
    });
    expect(agent.status).toBe(201);
    adminPage = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await notifier?.stop('SIGTERM');
    await platform?.stop();
    await mcp?.close();
    await mattermost?.close();
  });

  it('invites from the Members page; the invitee opens the link, chooses her name and is signed in with her own token', async () => {
    await adminPage.getByRole('link', { name: 'Members' }).click();
    await adminPage.getByRole('heading', { name: 'Members' }).waitFor();
    await adminPage.getByLabel('as').selectOption('member');
    await adminPage.getByRole('button', { name: 'Create invitation link' }).click();
    const url = await adminPage.getByTestId('invitation-url').inputValue();
    expect(url).toMatch(new RegExp(`^${platform.gatewayUrl}/join#syl_`));
    await screenshot(adminPage, 'members-invite');

    beaContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    beaPage = await beaContext.newPage();
    await beaPage.goto(url);
    await beaPage.getByLabel('Your name').fill(BEA);
    await screenshot(beaPage, 'join');
    await beaPage.getByRole('button', { name: 'Join' }).click();
    await beaPage.getByRole('heading', { name: `Welcome, ${BEA}` }).waitFor();
    // The secret left the address bar; her own token is shown once and works.
    expect(beaPage.url()).toBe(`${platform.gatewayUrl}/join`);
    const token = await beaPage.getByLabel(/Your API token/).inputValue();
    const whoami = (await apiClient(platform.gatewayUrl, token)('GET', '/v1/whoami')).body;
    expect(whoami).toMatchObject({ userName: BEA, role: 'member', workspace: { slug: WS } });
    beaId = whoami.userId;
    await beaPage.getByRole('button', { name: 'Continue to Switchyard' }).click();
    await beaPage.getByRole('heading', { name: 'Fleet' }).waitFor();
    await beaPage.getByTestId('user-name').filter({ hasText: BEA }).waitFor();

    // The link worked once: opened again, it is refused.
    const replay = await browser.newPage();
    await replay.goto(url);
    await replay.getByLabel('Your name').fill('Mallory');
    await replay.getByRole('button', { name: 'Join' }).click();
    await replay.getByRole('alert').filter({ hasText: 'INVITATION_USED' }).waitFor();
    await replay.close();

    await adminPage.reload();
    await adminPage.locator(`[data-member-id="${beaId}"]`).filter({ hasText: BEA }).waitFor();
  });

  it('she approves a parked run in the inbox: the approval, the fact, the UI and the Mattermost post name her', async () => {
    expect((await admin('POST', `${base}/events`, { kind: 'deploy.requested', subject: { type: 'release', id: '2.0' } })).status).toBe(202);
    const approval = await waitFor(async () => (await admin('GET', `${base}/approvals?status=pending`)).body.approvals[0], { what: 'a parked approval', timeoutMs: 60_000 });
    const postOf = () => mattermost.postsIn(channel).find((p) => p.message.includes(approval.id));
    await waitFor(async () => postOf(), { what: 'the approval posted to Mattermost', timeoutMs: 30_000 });

    await beaPage.getByRole('link', { name: 'Approvals', exact: true }).click();
    const card = beaPage.locator(`[data-testid="pending-list"] [data-approval-id="${approval.id}"]`);
    await card.getByRole('button', { name: 'Approve' }).click();
    await beaPage.locator(`[data-testid="decided-list"] [data-approval-id="${approval.id}"]`).getByTestId('decided-by').filter({ hasText: BEA }).waitFor();
    await screenshot(beaPage, 'approval-decided-by-name');

    const decided = (await admin('GET', `${base}/approvals/${approval.id}`)).body;
    expect(decided).toMatchObject({ status: 'approved', decidedBy: { type: 'member', userId: beaId, name: BEA } });
    const fact = await waitFor(
      async () => (await admin('GET', `${base}/events?kind=approval.decided`)).body.events.find((e: any) => e.subject.id === approval.id),
      { what: 'approval.decided recorded' },
    );
    expect(fact.actor).toEqual({ type: 'member', id: beaId, name: BEA });
    await waitFor(async () => JSON.stringify(postOf()!.props).includes(`Approved** by ${BEA}`), { what: 'the Mattermost post naming her', timeoutMs: 30_000 });

    // The admin's events list names her as the actor, not an id.
    await adminPage.getByRole('link', { name: 'Events' }).click();
    await adminPage.locator(`[data-event-id="${fact.id}"]`).filter({ hasText: BEA }).waitFor();
    await waitFor(async () => ['completed', 'failed'].includes((await admin('GET', `${base}/runs/${approval.runId}`)).body.status), { what: 'the run ended', timeoutMs: 60_000 });
  });

  it('removing her from the Members page closes her open event stream within 5 s and signs her browser out', async () => {
    const cookie = (await beaContext.cookies()).find((c) => c.name === 'sy_session')!;
    const stream = await openStream(`${platform.gatewayUrl}${base}/stream`, { cookie: `${cookie.name}=${cookie.value}` });
    expect(stream.status).toBe(200);
    expect(await within(stream.ended, 1_500)).toBe(false);

    await adminPage.getByRole('link', { name: 'Members' }).click();
    const removedAt = Date.now();
    await adminPage.getByRole('button', { name: `Remove ${BEA}` }).click();
    expect(await within(stream.ended, 5_000)).toBe(true);
    expect(Date.now() - removedAt).toBeLessThan(5_000);
    await adminPage.locator(`[data-member-id="${beaId}"]`).waitFor({ state: 'detached' });

    await beaPage.reload();
    await beaPage.getByLabel('API token').waitFor();
    const trail = await waitFor(
      async () => (await admin('GET', `${base}/audit?kind=member.*`)).body.entries.find((e: any) => e.kind === 'member.removed'),
      { what: 'member.removed in the trail' },
    );
    expect(trail.payload).toMatchObject({ userId: beaId, name: BEA, role: 'member' });
  });

  it('a one-time sign-in link (npm start, npm run admin -- sign-in-link) signs the admin in without a token, once', async () => {
    const made = await runAdmin(['sign-in-link', WS], { DATABASE_URL: platform.db.url, REDIS_URL: platform.redis.url, PUBLIC_URL: platform.gatewayUrl });
    expect(made.code).toBe(0);
    const url = made.stdout.trim().split('\n').at(-1)!;
    const page = await (await browser.newContext()).newPage();
    await page.goto(url);
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    await page.getByTestId('user-name').filter({ hasText: 'crew admin' }).waitFor();
    expect(page.url()).toBe(`${platform.gatewayUrl}/`);
    const again = await (await browser.newContext()).newPage();
    await again.goto(url);
    await again.getByRole('alert').filter({ hasText: 'INVITATION_USED' }).waitFor();
  });
});
