import { Client } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { newSecretsKey } from '@switchyard/core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { addPerson } from '../audit-helpers';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'audit';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 36 (audit trail): the Audit page in headless Chromium against the
 * real gateway and event-log processes. An admin sees who did what to what,
 * in words, newest first; new entries arrive live from the stream; the
 * person and kind filters narrow the trail (live entries too); people who
 * are not admins have no Audit page.
 */
describe('issue 36: the Audit page (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let ada: ReturnType<typeof apiClient>;
  let bea: ReturnType<typeof apiClient>;
  let viewerToken: string;
  let ciToken: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey() } });
    const token = await platform.createWorkspace(WS);
    ada = apiClient(platform.gatewayUrl, token);
    const pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    try {
      const workspaceId = (await pg.query('SELECT id FROM workspaces WHERE slug = $1', [WS])).rows[0].id;
      bea = apiClient(platform.gatewayUrl, (await addPerson(pg, workspaceId, 'Bea', 'admin')).token);
    } finally {
      await pg.end();
    }
    viewerToken = (await ada('POST', `${base}/tokens`, { name: 'wall', role: 'viewer' })).body.token;
    ciToken = (await ada('POST', `${base}/tokens`, { name: 'ci', role: 'member' })).body.id;
    expect((await bea('PUT', `${base}/secrets/DEPLOY_KEY`, { value: 'sk-never-shown' })).status).toBe(201);
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const rows = () => page.locator('[data-testid="audit"] tbody tr');
  /** The rows as `who: what`, top to bottom. */
  const shown = () =>
    page.evaluate(() =>
      // Runs in the page: its DOM, which this file's types (Node's) do not describe.
      [...(globalThis as any).document.querySelectorAll('[data-testid="audit"] tbody tr')].map(
        (row: any) => `${row.querySelector('[data-testid="audit-who"]')?.textContent}: ${row.querySelector('[data-testid="audit-what"]')?.textContent}`,
      ),
    ) as Promise<string[]>;
  /** Waits until the rows match these patterns, in order and no more; fails naming what is shown. */
  const expectRows = async (patterns: RegExp[]) => {
    const deadline = Date.now() + 20_000;
    let last: string[] = [];
    while (Date.now() < deadline) {
      last = await shown();
      if (last.length === patterns.length && patterns.every((pattern, i) => pattern.test(last[i]!))) return;
      await page.waitForTimeout(100);
    }
    throw new Error(`the trail shows ${JSON.stringify(last, null, 1)}, not ${patterns.join(' ')}`);
  };
  const filterBy = async (label: 'Person' | 'Kind', option: string) => page.getByLabel(label).selectOption({ label: option });
  const token = (verb: string, name: string, role: string) => new RegExp(`^audit admin: ${verb} token “${name}” \\(${role}, sy_[\\w-]{6}…\\)$`);
  const secretByBea = /^Bea: set secret DEPLOY_KEY$/;

  it('shows who did what to what, in words, newest first, and new entries live', async () => {
    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    await expectRows([secretByBea, token('created', 'ci', 'member'), token('created', 'wall', 'viewer')]);
    await screenshot(page, 'audit');
    // Changes made elsewhere appear at the top without a reload.
    expect((await bea('DELETE', `${base}/tokens/${ciToken}`)).status).toBe(204);
    expect((await ada('PUT', `${base}/settings`, { agentsPaused: true })).status).toBe(200);
    await expectRows([/^audit admin: paused all agents \(kill switch on\)$/, /^Bea: revoked token “ci” \(member, sy_[\w-]{6}…\)$/, secretByBea, token('created', 'ci', 'member'), token('created', 'wall', 'viewer')]);
    expect(await rows().first().getAttribute('data-kind')).toBe('workspace.settings_changed');
  });

  it('filters by person and by kind, the live entries too', async () => {
    await filterBy('Person', 'Bea');
    await expectRows([/^Bea: revoked token/, secretByBea]);
    await filterBy('Kind', 'secrets');
    await expectRows([secretByBea]);
    // A live entry outside the filter stays hidden; one inside it appears.
    expect((await ada('PUT', `${base}/secrets/OTHER_KEY`, { value: 'sk-other' })).status).toBe(201);
    expect((await bea('DELETE', `${base}/secrets/DEPLOY_KEY`)).status).toBe(204);
    await expectRows([/^Bea: deleted secret DEPLOY_KEY$/, secretByBea]);
    await filterBy('Person', 'everyone');
    await expectRows([/^Bea: deleted secret DEPLOY_KEY$/, /^audit admin: set secret OTHER_KEY$/, secretByBea]);
    await filterBy('Kind', 'kill switch and settings');
    await expectRows([/^audit admin: paused all agents/]);
    await filterBy('Kind', 'people');
    await page.getByText('Nothing in the audit trail matches.').waitFor();
    await filterBy('Kind', 'every kind');
    await expectRows([
      /^Bea: deleted secret DEPLOY_KEY$/,
      /^audit admin: set secret OTHER_KEY$/,
      /^audit admin: paused all agents/,
      /^Bea: revoked token “ci”/,
      secretByBea,
      token('created', 'ci', 'member'),
      token('created', 'wall', 'viewer'),
    ]);
    await screenshot(page, 'audit-filtered');
  });

  it('pages in older entries: 50 at first, the rest on asking, each once', async () => {
    for (let i = 0; i < 50; i++) expect((await ada('PUT', `${base}/secrets/KEY_${i}`, { value: `sk-${i}` })).status).toBe(201);
    await page.reload();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    await page.getByRole('button', { name: 'Older entries' }).waitFor();
    expect(await rows().count()).toBe(50);
    expect(await rows().first().getByTestId('audit-what').innerText()).toBe('set secret KEY_49');
    await page.getByRole('button', { name: 'Older entries' }).click();
    // The button reads "Loading…" while the page is fetched and is gone once no older page is left.
    await page.getByRole('button', { name: /^(Older entries|Loading…)$/ }).waitFor({ state: 'detached' });
    const all = await shown();
    expect(all).toHaveLength(57);
    expect(new Set(all).size).toBe(57);
    expect(all.at(-1)).toMatch(token('created', 'wall', 'viewer'));
  });

  it('is not offered to people who are not admins', async () => {
    const viewer = await signedInPage(browser, platform.gatewayUrl, viewerToken);
    try {
      expect(await viewer.getByRole('link', { name: 'Audit', exact: true }).count()).toBe(0);
      await viewer.goto(`${platform.gatewayUrl}/audit`);
      await viewer.getByRole('alert').filter({ hasText: 'The audit trail is for admins.' }).waitFor();
    } finally {
      await viewer.context().close();
    }
  });
});
