import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage, tabTo } from './browser';

jest.setTimeout(300_000);

const WS = 'yard';
const base = `/v1/workspaces/${WS}`;

/** No horizontal scroll of the page itself (the phone-width check of the other UI tests). */
const fitsWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth);

/**
 * Issue 32 §3, agents: in headless Chromium against the real gateway, an agent
 * created from the blank form (keyboard only), edited as a new version,
 * disabled and enabled, a manual run started with input, stopped and retried,
 * the agent deleted; and a viewer offered none of it, the API's 403 shown
 * when the viewer forces the form.
 */
describe('issue 32 §3: the fleet manageable from the UI — agents and runs (headless Chromium)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let viewerToken: string;
  let agentId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform();
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    viewerToken = (await admin('POST', `${base}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('creates an agent from the blank form by keyboard; the API issues are shown at their path first', async () => {
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    const newAgent = page.getByRole('link', { name: 'New agent' });
    await tabTo(page, newAgent);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New agent' }).waitFor();
    const form = page.getByRole('form', { name: 'new agent' });
    await form.getByLabel('Name', { exact: true }).fill('greeter');
    await form.getByLabel('Instructions').fill('You greet.');
    await form.getByLabel(/^Triggers/).fill('visitor.arrived\nvisitor.left');
    await form.getByLabel('Mode', { exact: true }).selectOption('auto');
    await form.getByLabel('Budget per run (USD)').fill('30');
    await form.getByLabel('Budget per day (USD)').fill('5');
    const create = form.getByRole('button', { name: 'Create agent' });
    await tabTo(page, create);
    await page.keyboard.press('Enter');
    await page.getByTestId('new-agent-issues').filter({ hasText: 'budget.perRunUsd' }).waitFor();
    expect((await admin('GET', `${base}/agents`)).body.agents).toHaveLength(0);
    await screenshot(page, 'agent-new-error');

    await form.getByLabel('Budget per run (USD)').fill('0.5');
    await create.click();
    await page.getByRole('heading', { name: 'greeter' }).waitFor();
    agentId = page.url().split('/agents/')[1]!;
    const saved = (await admin('GET', `${base}/agents/${agentId}`)).body;
    expect(saved).toMatchObject({
      enabled: true,
      version: 1,
      spec: {
        name: 'greeter',
        instructions: 'You greet.',
        model: { provider: 'openai', name: 'gpt-4.1-mini' },
        triggers: [{ kind: 'visitor.arrived' }, { kind: 'visitor.left' }],
        permissionMode: 'auto',
        budget: { perRunUsd: 0.5, perDayUsd: 5 },
      },
    });
  });

  it('edits the agent as a new version, disables and enables it', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByLabel('Spec (JSON)');
    const spec = JSON.parse(await editor.inputValue());
    await editor.fill(JSON.stringify({ ...spec, instructions: 'You greet warmly.' }, null, 2));
    await page.getByRole('button', { name: 'Save as v2' }).click();
    await page.getByTestId('agent-version').filter({ hasText: 'v2' }).waitFor();
    expect((await admin('GET', `${base}/agents/${agentId}`)).body.spec.instructions).toBe('You greet warmly.');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByTestId('agent-enabled').filter({ hasText: 'disabled' }).waitFor();
    expect((await admin('GET', `${base}/agents/${agentId}`)).body.enabled).toBe(false);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('agent-enabled').filter({ hasText: /^enabled$/ }).waitFor();
  });

  it('starts a manual run with input, stops it and retries it', async () => {
    const form = page.getByRole('form', { name: 'start a run' });
    await form.getByLabel('Input').fill('hello from the page');
    await form.getByRole('button', { name: 'Start run' }).click();
    await page.getByTestId('run-status').waitFor();
    const runId = page.url().split('/runs/')[1]!;
    const run = (await admin('GET', `${base}/runs/${runId}`)).body;
    expect(run).toMatchObject({ agentId, agentVersion: 2, origin: { type: 'manual', input: 'hello from the page' } });

    // No runner here: the run stays queued until stopped.
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'cancelled' }).waitFor();
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(runId));
    const retried = (await admin('GET', `${base}/runs/${page.url().split('/runs/')[1]}`)).body;
    expect(retried).toMatchObject({ agentId, status: 'queued' });
  });

  it('is usable at phone width: the new-agent form and the agent page fit', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${platform.gatewayUrl}/agents/new`);
    await page.getByRole('form', { name: 'new agent' }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'agent-new-phone');
    await page.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await page.getByRole('form', { name: 'start a run' }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('refuses a viewer: no writes offered, and the forced form shows the API 403', async () => {
    const viewer = await signedInPage(browser, platform.gatewayUrl, viewerToken);
    await viewer.goto(`${platform.gatewayUrl}/agents`);
    await viewer.getByTestId('agents').getByRole('link', { name: 'greeter' }).waitFor();
    expect(await viewer.getByRole('link', { name: 'New agent' }).count()).toBe(0);
    await viewer.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await viewer.getByRole('heading', { name: 'greeter' }).waitFor();
    expect(await viewer.getByRole('button', { name: /^(Edit|Disable|Enable|Delete)$/ }).count()).toBe(0);
    expect(await viewer.getByRole('form', { name: 'start a run' }).count()).toBe(0);
    const runId = (await admin('GET', `${base}/runs?limit=1`)).body.runs[0].id;
    await viewer.goto(`${platform.gatewayUrl}/runs/${runId}`);
    await viewer.getByTestId('run-status').waitFor();
    expect(await viewer.getByRole('button', { name: /^(Stop|Retry)$/ }).count()).toBe(0);

    await viewer.goto(`${platform.gatewayUrl}/agents/new`);
    const form = viewer.getByRole('form', { name: 'new agent' });
    await form.getByLabel('Name', { exact: true }).fill('intruder');
    await form.getByLabel('Instructions').fill('x');
    await form.getByLabel(/^Triggers/).fill('x.y');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await viewer.getByRole('alert').filter({ hasText: 'FORBIDDEN' }).waitFor();
    // The same commands refuse the viewer's other agent writes.
    const asViewer = apiClient(platform.gatewayUrl, viewerToken);
    expect((await asViewer('POST', `${base}/agents/${agentId}/runs`, { input: 'x' })).status).toBe(403);
    expect((await asViewer('DELETE', `${base}/agents/${agentId}`)).status).toBe(403);
    expect((await asViewer('POST', `${base}/runs/${runId}/stop`, {})).status).toBe(403);
    await viewer.context().close();
  });

  it('deletes the agent after a confirmation', async () => {
    await page.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'confirm delete' }).getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await page.getByText('No agents yet.').waitFor();
    expect((await admin('GET', `${base}/agents/${agentId}`)).status).toBe(404);
  });
});
