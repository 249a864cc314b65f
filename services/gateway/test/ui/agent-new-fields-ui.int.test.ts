import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'forms';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 32 (small gap): the blank new-agent form takes a trigger's filter,
 * the tools (platform globs, MCP servers as JSON) and the flow fields, in
 * headless Chromium against the real gateway; a filter that is not valid is
 * the API's VALIDATION_FAILED at its path, nothing created.
 */
describe('issue 32: the new-agent form with filters, tools and flow (headless Chromium)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform();
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('creates an agent with a filtered trigger, platform tools, an MCP server and flow control; a bad filter is refused at its path', async () => {
    await page.goto(`${platform.gatewayUrl}/agents/new`);
    const form = page.getByRole('form', { name: 'new agent' });
    await form.getByLabel('Name', { exact: true }).fill('scorecard-watch');
    await form.getByLabel('Instructions').fill('Flag bad scorecards.');
    await form.getByLabel(/^Triggers/).fill('scorecard.completed {"path":"payload.failedCases","op":"gt"');
    await form.getByLabel(/^Platform tools/).fill('list_events, emit_event');
    await form.getByLabel(/^MCP servers/).fill('[{"name":"scorecard","transport":"http","url":"https://scorecards.example.com/mcp"}]');
    await form.getByLabel('Concurrency').fill('3');
    await form.getByLabel('Cooldown (ms)').fill('60000');
    await form.getByLabel('Queue cap').fill('25');
    await form.getByLabel('Debounce (ms)').fill('500');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await page.getByTestId('new-agent-issues').filter({ hasText: 'triggers.0.filter' }).waitFor({ timeout: 30_000 });
    expect((await admin('GET', `${base}/agents`)).body.agents).toHaveLength(0);

    await form.getByLabel(/^Triggers/).fill('scorecard.completed {"path":"payload.failedCases","op":"gt","value":2}\nscorecard.archived');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL(/\/agents\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    const agent = (await admin('GET', `${base}/agents/${page.url().split('/').at(-1)}`)).body;
    expect(agent.spec).toMatchObject({
      name: 'scorecard-watch',
      triggers: [{ kind: 'scorecard.completed', filter: { path: 'payload.failedCases', op: 'gt', value: 2 } }, { kind: 'scorecard.archived' }],
      tools: { platform: ['list_events', 'emit_event'], mcpServers: [{ name: 'scorecard', transport: 'http', url: 'https://scorecards.example.com/mcp' }] },
      flow: { concurrency: 3, cooldownMs: 60_000, queueCap: 25, debounceMs: 500 },
    });
  });
});
