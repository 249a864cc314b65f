import type { Browser, Page } from 'playwright-core';
import { newSecretsKey } from '@switchyard/core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'lab';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 32 §2 in the web UI (decision 0049), in headless Chromium against the
 * real gateway: the Templates page lists the shipped templates; Adopt (with a
 * name) makes a disabled copy and shows its checklist — secrets set or
 * missing in this workspace, MCP servers, notification rules; a taken name
 * shows its refusal; a viewer is offered no Adopt.
 */
describe('issue 32: the Templates page (headless Chromium)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let viewerToken: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey() } });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    viewerToken = (await admin('POST', `${base}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    expect((await admin('PUT', `${base}/secrets/scorecard-token`, { value: 'Bearer x' })).status).toBe(201);
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('lists the templates and adopts one, showing the checklist; a taken name shows its refusal', async () => {
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    const card = page.locator('[data-template-id="failure-fix-pr"]');
    await card.getByRole('heading', { name: 'Failure Fix PR' }).waitFor();
    expect(await page.locator('[data-template-id]').count()).toBe(3);
    await card.getByLabel('Name').fill('fixer');
    await card.getByRole('button', { name: 'Adopt' }).click();
    const checklist = card.getByTestId('adopt-checklist');
    await checklist.waitFor();
    expect(await checklist.locator('[data-secret="scorecard-token"]').getAttribute('data-set')).toBe('true');
    expect(await checklist.locator('[data-secret="code-host-token"]').getAttribute('data-set')).toBe('false');
    expect(await checklist.locator('[data-mcp-server]').count()).toBe(2);
    expect(await checklist.locator('[data-rule="failure-fix-approval"]').count()).toBe(1);
    await screenshot(page, 'templates-adopted');
    const agents = (await admin('GET', `${base}/agents`)).body.agents;
    expect(agents.map((a: { spec: { name: string }; enabled: boolean }) => [a.spec.name, a.enabled])).toEqual([['fixer', false]]);

    await checklist.getByRole('link', { name: 'fixer' }).click();
    await page.waitForURL(/\/agents\//);
    await page.goBack();
    const again = page.locator('[data-template-id="failure-fix-pr"]');
    await again.getByLabel('Name').fill('fixer');
    await again.getByRole('button', { name: 'Adopt' }).click();
    await again.getByRole('alert').filter({ hasText: 'AGENT_NAME_TAKEN' }).waitFor();
  });

  it('offers a viewer the list but no Adopt', async () => {
    const viewer = await signedInPage(browser, platform.gatewayUrl, viewerToken);
    await viewer.goto(`${platform.gatewayUrl}/templates`);
    await viewer.locator('[data-template-id="scorecard-sentinel"]').getByRole('heading', { name: 'Scorecard Sentinel' }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Adopt' }).count()).toBe(0);
    await viewer.close();
  });
});
