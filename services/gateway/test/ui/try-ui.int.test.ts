import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestMcpServer, startTestPlatform, type TestMcpHttpServer, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot } from './browser';

jest.setTimeout(300_000);

const WS = 'lab';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 16: try-drive in the web UI (decision 0027), in headless Chromium
 * against the real platform (gateway, event-log, matcher, runner as
 * processes) and the MCP test server counting calls. The agent is disabled,
 * so the recorded fact activates nothing: every call seen is a try's.
 */
describe('issue 16: trying an agent in shadow from its page (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let agentId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    mcp = await startTestMcpServer();
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { RUNNER_MCP_ALLOW_PRIVATE: 'true' } });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    const created = await admin('POST', `${base}/agents`, {
      name: 'deployer',
      instructions: 'Deploy what is asked.',
      model: { provider: 'scripted', name: 'script', params: { stepMs: 50 } },
      script: [{ say: 'deploying', tool: 'web.echo', arguments: { text: 'deploy {{event.subject.id}}' } }, { say: 'deployed' }],
      triggers: [{ kind: 'deploy.requested' }],
      tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      enabled: false,
    });
    expect(created.status).toBe(201);
    agentId = created.body.id;
    expect((await admin('POST', `${base}/events`, { kind: 'deploy.requested', subject: { type: 'release', id: '2.0.0' } })).status).toBe(202);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${platform.gatewayUrl}/`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await mcp?.close();
  });

  const echoCalls = () => mcp.calls.filter((call) => call.name === 'echo').length;
  const panel = () => page.getByRole('region', { name: 'try in shadow' });

  it('tries the saved version on a recorded fact: the call is listed as wouldHave, live, and never made', async () => {
    await page.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    const fact = panel().getByLabel('recorded fact');
    await fact.locator('option', { hasText: 'release/2.0.0' }).waitFor({ state: 'attached' });
    await panel().getByRole('button', { name: 'Try in shadow' }).click();
    const run = panel().getByTestId('try-run');
    await run.getByTestId('try-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    const wouldHave = run.getByTestId('would-have').locator('li');
    await wouldHave.first().waitFor();
    expect(await wouldHave.allTextContents()).toEqual(['web.echo {"text":"deploy 2.0.0"}']);
    await run.getByTestId('transcript').getByText('would have (not executed)').waitFor();
    await run.getByTestId('transcript').getByText('deployed').waitFor();
    const runId = (await run.getAttribute('data-run-id'))!;
    await panel().locator(`[data-testid="tries"] tr[data-run-id="${runId}"]`).getByText('v1').waitFor();
    expect((await admin('GET', `${base}/runs/${runId}/would-have`)).body.wouldHave).toMatchObject([{ tool: 'web.echo', arguments: { text: 'deploy 2.0.0' } }]);
    expect(echoCalls()).toBe(0);
    await screenshot(page, 'agent-try');
  });

  it('tries the draft in the editor on a fact written there, saving nothing; both tries are listed', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const spec = JSON.parse(await page.getByLabel('Spec (JSON)').inputValue());
    spec.script[0].arguments.text = 'draft {{event.subject.id}}';
    await page.getByLabel('Spec (JSON)').fill(JSON.stringify(spec, null, 2));
    await panel().getByLabel('the draft in the editor').check();
    await panel().getByLabel('a fact written here').check();
    await panel().getByLabel('Subject (type/id)').fill('release/3.0.0');
    const first = await panel().getByTestId('try-run').getAttribute('data-run-id');
    await panel().getByRole('button', { name: 'Try in shadow' }).click();
    // The new try replaces the first one on the panel.
    const run = panel().locator(`[data-testid="try-run"]:not([data-run-id="${first}"])`);
    await run.getByTestId('try-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    await run.getByTestId('would-have').locator('li').first().waitFor();
    expect(await run.getByTestId('would-have').locator('li').allTextContents()).toEqual(['web.echo {"text":"draft 3.0.0"}']);
    const rows = panel().locator('[data-testid="tries"] tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.locator('td:nth-child(2)').allTextContents()).toEqual(['draft', 'v1']);
    expect((await admin('GET', `${base}/agents/${agentId}`)).body.version).toBe(1);
    expect((await admin('GET', `${base}/agents/${agentId}/tries`)).body.tries.map((t: any) => t.version)).toEqual([null, 1]);
    expect(echoCalls()).toBe(0);
  });

  it('shows an invalid draft refused at its path, trying nothing', async () => {
    const spec = JSON.parse(await page.getByLabel('Spec (JSON)').inputValue());
    spec.budget.maxTurns = 0;
    await page.getByLabel('Spec (JSON)').fill(JSON.stringify(spec, null, 2));
    await panel().getByRole('button', { name: 'Try in shadow' }).click();
    const issues = panel().getByTestId('try-issues');
    await issues.waitFor();
    expect(await issues.locator('.issue-path').allTextContents()).toEqual(['spec.budget.maxTurns']);
    expect((await admin('GET', `${base}/agents/${agentId}/tries`)).body.tries).toHaveLength(2);
  });
});
