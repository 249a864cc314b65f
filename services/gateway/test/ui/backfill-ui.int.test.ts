import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage } from './browser';
import { scripted } from './scripted-spec';

jest.setTimeout(300_000);

const WS = 'fill';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 30: a backfill run's page shows its batch (decision 0055) in headless
 * Chromium against the real gateway, event-log, matcher and a runner: the
 * batch's status, how many of its facts have their run, and its runs with
 * their status; the batch ends on the page when its agent is deleted.
 */
describe('issue 30: the batch view on a backfill run’s page (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ matcher: true, runners: 1 });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('shows the batch, its progress and its runs, and its end when the agent is deleted', async () => {
    const from = new Date(Date.now() - 1_000).toISOString();
    const events = Array.from({ length: 6 }, (_, n) => ({ kind: 'load.item', subject: { type: 'item', id: `i-${n}` }, payload: { n } }));
    expect((await admin('POST', `${base}/events:batch`, { events })).status).toBe(202);
    await waitFor(async () => (await admin('GET', `${base}/events?kind=load.item&limit=10`)).body.events?.length === 6, { timeoutMs: 60_000, what: 'the facts stored' });
    // Slow runs, two queued at most: the batch is still running while the page is read.
    const agent = await admin('POST', `${base}/agents`, { ...scripted('filler', 'nothing.ever', [{ say: 'seen' }], {}, 3_000), flow: { queueCap: 2 } });
    expect(agent.status).toBe(201);
    const batch = await admin('POST', `${base}/agents/${agent.body.id}/backfill`, { kind: 'load.*', from, to: new Date(Date.now() + 1_000).toISOString() });
    expect(batch.status).toBe(201);
    const [first] = await waitFor(async () => {
      const listed = (await admin('GET', `${base}/runs?batchId=${batch.body.batchId}`)).body.runs as Array<{ id: string }>;
      return listed.length > 0 && listed;
    }, { timeoutMs: 30_000, what: 'the batch’s first run' });

    await page.goto(`${platform.gatewayUrl}/runs/${first!.id}`);
    // A backfill run's id is derived from its batch and fact: the page (GET /runs/{id}) takes it as any run's.
    await page.getByTestId('backfill-batch').waitFor();
    expect(await page.getByRole('heading', { name: 'Backfill' }).count()).toBe(1);
    expect(await page.getByTestId('batch-status').textContent()).toBe('running');
    expect(await page.getByTestId('batch-progress').textContent()).toMatch(/^[1-6] of 6$/);
    const rows = page.locator('[data-testid="batch-runs"] tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    // This run is in the list, marked as the one shown; the others link to their pages.
    const current = page.locator(`[data-testid="batch-runs"] tr[data-run-id="${first!.id}"]`);
    expect(await current.getAttribute('aria-current')).toBe('true');
    expect(await current.locator('td').nth(1).getByRole('link').count()).toBe(1);
    await screenshot(page, 'backfill-batch');

    expect((await admin('DELETE', `${base}/agents/${agent.body.id}`)).status).toBe(204);
    await page.locator('[data-testid="backfill-batch"][data-status="stopped"]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('batch-reason').textContent()).toBe(' its agent was deleted');
    const started = Number((await page.getByTestId('batch-progress').textContent())!.split(' ')[0]);
    expect(started).toBeLessThan(6);
    // Every run it started is listed (the list is read again while any of them is live).
    await waitFor(async () => (await rows.count()) === started, { timeoutMs: 30_000, what: 'the batch’s runs listed' });
  });
});
