import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage, tabTo } from './browser';

jest.setTimeout(300_000);

const WS = 'squad';
const base = `/v1/workspaces/${WS}`;

const fitsWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth);

/**
 * Issue 32 §3, the team and collaborators in headless Chromium against the
 * real gateway: a teammate spawned from the Team page (keyboard), messaged and
 * stopped; the task board's create, claim, complete and cancel; an agent's
 * collaborators allowed, refused and cleared on its page; and a viewer offered
 * none of it, the API refusing the same writes with 403.
 */
describe('issue 32 §3: the fleet manageable from the UI — team, tasks, collaborators (headless Chromium)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let viewerToken: string;
  let leadId: string;
  let helperId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform();
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    viewerToken = (await admin('POST', `${base}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    const spec = (name: string) => ({ name, instructions: 'You help.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'ok' }], triggers: [{ kind: 'never.fires' }] });
    leadId = (await admin('POST', `${base}/agents`, spec('lead'))).body.id;
    helperId = (await admin('POST', `${base}/agents`, spec('helper'))).body.id;
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const row = (name: string) => page.locator(`[data-testid="roster"] tr[data-teammate="${name}"]`);

  it('spawns a teammate by keyboard, messages it and stops it', async () => {
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    const summary = page.getByText('Spawn a teammate');
    await tabTo(page, summary);
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'spawn a teammate' });
    await form.getByLabel('Teammate name').fill('helper-1');
    await form.getByLabel('Runs agent').selectOption({ label: 'helper' });
    await form.getByLabel('Team (optional)').fill('ops');
    await form.getByLabel(/Watches/).fill('deploy.*');
    await form.getByRole('button', { name: 'Spawn' }).focus();
    await page.keyboard.press('Enter');
    await form.getByRole('status').filter({ hasText: 'Spawned helper-1.' }).waitFor();
    await row('helper-1').waitFor();
    expect((await admin('GET', `${base}/teammates/helper-1`)).body).toMatchObject({ agentId: helperId, team: 'ops', watch: [{ kind: 'deploy.*' }] });
    // The API's refusal of a taken name is shown.
    await form.getByLabel('Teammate name').fill('helper-1');
    await form.getByRole('button', { name: 'Spawn' }).click();
    await form.getByRole('alert').waitFor();

    await row('helper-1').getByLabel('message to helper-1').fill('check the deploy');
    await row('helper-1').getByRole('button', { name: 'Send' }).click();
    await row('helper-1').getByRole('status').filter({ hasText: 'sent' }).waitFor();
    await row('helper-1').getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('dialog', { name: 'confirm stop helper-1' }).getByRole('button', { name: 'Yes, stop' }).click();
    await row('helper-1').getByTestId('teammate-status').filter({ hasText: 'stopped' }).waitFor();
    expect((await admin('GET', `${base}/teammates/helper-1`)).body.status).toBe('stopped');
  });

  it('drives the task board: create, claim, complete, cancel', async () => {
    const card = (subject: string) => page.getByRole('article', { name: `task ${subject}` });
    const newTask = page.getByRole('form', { name: 'new task' });
    for (const subject of ['ship it', 'drop it']) {
      await newTask.getByRole('textbox').fill(subject);
      await newTask.getByRole('button', { name: 'Create' }).click();
      await card(subject).waitFor();
    }
    await card('ship it').getByRole('button', { name: 'Claim' }).click();
    await page.locator('[data-testid="task-board"] [data-status="in_progress"]').getByText('ship it').waitFor();
    await card('ship it').getByRole('button', { name: 'Complete' }).click();
    await page.locator('[data-testid="task-board"] [data-status="completed"]').getByText('ship it').waitFor();
    await card('drop it').getByRole('button', { name: 'Cancel' }).click();
    await page.locator('[data-testid="task-board"] [data-status="cancelled"]').getByText('drop it').waitFor();
    const stored = (await admin('GET', `${base}/tasks`)).body.tasks.map((task: { subject: string; status: string }) => [task.subject, task.status]);
    expect(stored).toEqual([
      ['ship it', 'completed'],
      ['drop it', 'cancelled'],
    ]);
  });

  it('is usable at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('form', { name: 'new task' }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("sets an agent's collaborators: allowed, refused, cleared", async () => {
    await page.goto(`${platform.gatewayUrl}/agents/${leadId}`);
    const rule = page.getByLabel('delegation to helper');
    await rule.selectOption('enabled');
    const stored = async () => (await admin('GET', `${base}/agents/${leadId}/collaborators`)).body.collaborators.find((c: { agentId: string }) => c.agentId === helperId).rule;
    await waitFor(async () => (await stored()) === 'enabled', { timeoutMs: 10_000, what: 'the rule enabled' });
    await rule.selectOption('disabled');
    await waitFor(async () => (await stored()) === 'disabled', { timeoutMs: 10_000, what: 'the rule disabled' });
    await screenshot(page, 'agent-collaborators');
    await rule.selectOption('none');
    await waitFor(async () => (await stored()) === 'none', { timeoutMs: 10_000, what: 'the rule none' });
    await waitFor(async () => (await rule.inputValue()) === 'none', { timeoutMs: 10_000, what: 'the select showing no rule' });
  });

  it('refuses a viewer: no writes offered, and the API answers 403', async () => {
    await admin('PUT', `${base}/agents/${leadId}/collaborators/${helperId}`, { enabled: true });
    const viewer = await signedInPage(browser, platform.gatewayUrl, viewerToken);
    await viewer.getByRole('link', { name: 'Team', exact: true }).click();
    await viewer.locator('[data-testid="roster"] tr[data-teammate="helper-1"]').waitFor();
    await viewer.getByRole('article', { name: 'task ship it' }).waitFor();
    expect(await viewer.getByText('Spawn a teammate').count()).toBe(0);
    expect(await viewer.getByRole('form').count()).toBe(0);
    expect(await viewer.getByRole('button', { name: /^(Claim|Complete|Cancel|Reopen|Stop|Send)$/ }).count()).toBe(0);
    await viewer.goto(`${platform.gatewayUrl}/agents/${leadId}`);
    await viewer.locator('tr[data-collaborator="helper"]').getByTestId('collaborator-rule').filter({ hasText: 'enabled' }).waitFor();
    expect(await viewer.getByLabel('delegation to helper').count()).toBe(0);
    const asViewer = apiClient(platform.gatewayUrl, viewerToken);
    expect((await asViewer('POST', `${base}/teammates`, { name: 'x-1', agentId: helperId })).status).toBe(403);
    expect((await asViewer('POST', `${base}/tasks`, { subject: 'x' })).status).toBe(403);
    expect((await asViewer('PUT', `${base}/agents/${leadId}/collaborators/${helperId}`, { enabled: false })).status).toBe(403);
    await viewer.context().close();
  });
});
