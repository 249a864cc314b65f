import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestMcpServer, startTestPlatform, waitFor, type TestMcpHttpServer, type TestPlatform } from '@switchyard/testing';
import { deployerSpec } from './scripted-spec';
import { launchBrowser, screenshot, signedInPage, tabTo } from './browser';

jest.setTimeout(300_000);

const WS = 'ops';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 16: approvals in the web UI, in headless Chromium against the real
 * platform (gateway, event-log, matcher, runner as processes) and the real MCP
 * test server counting calls: a parked approval appears in the inbox and on
 * its run's page, is approved by a click and the run completes with the tool
 * called exactly once; a parked run stopped from its page (cascade on) is
 * cancelled with its approval closed and the tool never called.
 */
describe('issue 16: approvals and stop in the web UI (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let token: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    mcp = await startTestMcpServer();
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { RUNNER_MCP_ALLOW_PRIVATE: 'true' } });
    token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    const created = await admin('POST', `${base}/agents`, deployerSpec(mcp.url));
    expect(created.status).toBe(201);
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await mcp?.close();
  });

  const echoCalls = () => mcp.calls.filter((call) => call.name === 'echo').length;
  const parkedRun = async (subject: string) => {
    expect((await admin('POST', `${base}/events`, { kind: 'deploy.requested', subject: { type: 'release', id: subject } })).status).toBe(202);
    return waitFor(
      async () => {
        const { approvals } = (await admin('GET', `${base}/approvals?status=pending`)).body;
        return approvals.find((a: any) => !seen.has(a.id) && seen.add(a.id));
      },
      { timeoutMs: 60_000, what: `an approval for ${subject}` },
    );
  };
  const seen = new Set<string>();

  it('shows a parked approval in the inbox and on its run, approves it by a click, and the run completes having called the tool once', async () => {
    const approval = await parkedRun('1.2.3');
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    const card = page.locator(`[data-testid="pending-list"] [data-approval-id="${approval.id}"]`);
    await card.getByText('web.echo', { exact: true }).waitFor();
    await card.getByTestId('arguments-preview').getByText('deploy 1.2.3').waitFor();
    await screenshot(page, 'approvals');
    await page.getByRole('link', { name: 'Fleet' }).click();
    await page.getByTestId('pending-approvals').filter({ hasText: '1 pending approvals' }).waitFor();

    await page.goto(`${platform.gatewayUrl}/runs/${approval.runId}`);
    await page.getByTestId('run-status').filter({ hasText: 'awaiting_approval' }).waitFor();
    const inline = page.locator(`[data-testid="run-approvals"] [data-approval-id="${approval.id}"]`);
    await inline.getByLabel('note').fill('ship it');
    await screenshot(page, 'run-approval');
    expect(echoCalls()).toBe(0);
    await inline.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    await inline.getByTestId('decision').filter({ hasText: 'approved' }).waitFor();
    expect(echoCalls()).toBe(1);
    // The timeline (issue 35 §7): the approval's wait and the approved call as bars on the run's time axis.
    const timeline = page.getByTestId('run-timeline');
    await timeline.locator('[data-span-kind="approval"]').filter({ hasText: 'approval web.echo' }).filter({ hasText: 'approved' }).waitFor();
    await timeline.locator('[data-span-kind="tool_call"]').filter({ hasText: 'execute_tool web.echo' }).waitFor();
    expect(await timeline.locator('[data-span-kind="model_call"]').count()).toBeGreaterThan(0);
    await screenshot(page, 'run-timeline');
    expect((await admin('GET', `${base}/approvals/${approval.id}`)).body).toMatchObject({ status: 'approved', note: 'ship it' });
  });

  it('stops a parked run from its page with cascade: cancelled, its approval closed, the tool never called', async () => {
    const before = echoCalls();
    const approval = await parkedRun('1.2.4');
    await page.goto(`${platform.gatewayUrl}/runs/${approval.runId}`);
    await page.getByTestId('run-status').filter({ hasText: 'awaiting_approval' }).waitFor();
    expect(await page.getByLabel('and every run it caused').isChecked()).toBe(true);
    // By keyboard: Tab reaches Stop, Enter stops.
    await tabTo(page, page.getByRole('button', { name: 'Stop' }));
    await page.keyboard.press('Enter');
    await page.getByTestId('run-status').filter({ hasText: 'cancelled' }).waitFor();
    await page.getByTestId('stopped').getByText('1 approvals closed').waitFor();
    await screenshot(page, 'run-stopped');
    expect((await admin('GET', `${base}/approvals/${approval.id}`)).body).toMatchObject({ status: 'denied', decidedBy: { type: 'system', reason: 'run_stopped' } });
    expect(echoCalls()).toBe(before);
  });

  it('denies an approval from the inbox by keyboard: Tab reaches the note and Deny, Enter decides; the tool is never called', async () => {
    const before = echoCalls();
    const approval = await parkedRun('1.2.5');
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    const card = page.locator(`[data-testid="pending-list"] [data-approval-id="${approval.id}"]`);
    await tabTo(page, card.getByLabel('note'));
    await page.keyboard.type('not today');
    await tabTo(page, card.getByRole('button', { name: 'Deny' }));
    await page.keyboard.press('Enter');
    await waitFor(async () => (await admin('GET', `${base}/approvals/${approval.id}`)).body.status === 'denied', { what: 'the approval denied' });
    expect((await admin('GET', `${base}/approvals/${approval.id}`)).body).toMatchObject({ status: 'denied', note: 'not today' });
    await waitFor(async () => ['cancelled', 'completed', 'failed'].includes((await admin('GET', `${base}/runs/${approval.runId}`)).body.status), { what: 'the run ended', timeoutMs: 60_000 });
    expect(echoCalls()).toBe(before);
  });

  it('shows, on coming back, what was decided while the inbox was closed', async () => {
    const approval = await parkedRun('1.2.6');
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    await page.locator(`[data-testid="pending-list"] [data-approval-id="${approval.id}"]`).waitFor();
    // Away on another page (no reload) while it is decided by API, and back within the cache's freshness.
    await page.getByRole('link', { name: 'Fleet' }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    expect((await admin('POST', `${base}/approvals/${approval.id}/decision`, { decision: 'deny', note: 'decided elsewhere' })).status).toBe(200);
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    await page.locator(`[data-testid="decided-list"] [data-approval-id="${approval.id}"]`).waitFor({ timeout: 10_000 });
    expect(await page.locator(`[data-testid="pending-list"] [data-approval-id="${approval.id}"]`).count()).toBe(0);
  });
});
