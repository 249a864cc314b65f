import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'sched';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 30 §1: the Schedules page in headless Chromium against the real
 * gateway and event-log processes. Each schedule shows its timing, its zone
 * and its next fire as the wall-clock time of that zone (not the browser's);
 * a disabled one says so; "Fire now" records a fire and links its fact.
 */
describe('issue 30: the Schedules page (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    browser = await launchBrowser();
    // Schedules are not fired here: the page is what is tested, and its next fire times must hold still.
    platform = await startTestPlatform({ env: { SCHEDULES_ENABLED: 'false' } });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    for (const schedule of [
      { name: 'paris standup', cron: '0 9 * * *', timezone: 'Europe/Paris', emit: { kind: 'standup.due' } },
      { name: 'new york close', cron: '30 16 * * *', timezone: 'America/New_York' },
      { name: 'tokyo off', cron: '0 7 * * *', timezone: 'Asia/Tokyo', enabled: false },
    ]) {
      expect((await admin('POST', `${base}/schedules`, schedule)).status).toBe(201);
    }
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const nextFireOf = (name: string) => page.locator(`[data-schedule="${name}"] [data-testid="next-fire"]`);

  it('lists the schedules with their next fire in each schedule’s own zone', async () => {
    await page.getByRole('link', { name: 'Schedules', exact: true }).click();
    await page.getByRole('heading', { name: 'Schedules' }).waitFor();
    await nextFireOf('paris standup').waitFor();
    // Paris is GMT+1 in winter and GMT+2 in summer; New York EST or EDT; whatever the browser's own zone.
    expect(await nextFireOf('paris standup').textContent()).toMatch(/^\d{4}-\d\d-\d\d 09:00:00 GMT\+[12]$/);
    expect(await nextFireOf('new york close').textContent()).toMatch(/^\d{4}-\d\d-\d\d 16:30:00 E[SD]T$/);
    expect(await nextFireOf('tokyo off').textContent()).toBe('disabled');
    const row = page.locator('[data-schedule="paris standup"]');
    expect(await row.textContent()).toContain('Europe/Paris');
    expect(await row.textContent()).toContain('standup.due');
    await screenshot(page, 'schedules');
  });

  it('fires a schedule now and links the fact it recorded', async () => {
    await page.locator('[data-schedule="new york close"]').getByRole('button', { name: 'Fire now' }).click();
    const status = page.getByTestId('fired');
    await status.waitFor();
    expect(await status.textContent()).toMatch(/^Fired new york close: fact [0-9a-f-]{36}$/);
    const fires = (await admin('GET', `${base}/schedules`)).body.schedules.find((s: { name: string }) => s.name === 'new york close');
    const history = (await admin('GET', `${base}/schedules/${fires.id}/fires`)).body.fires;
    expect(history).toHaveLength(1);
    expect(await status.textContent()).toContain(history[0].factId);
  });
});
