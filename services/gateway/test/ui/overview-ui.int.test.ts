import type { Browser, Page, Route } from 'playwright-core';
import {
  apiClient,
  startLocalOpenAiServer,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type LocalOpenAiServer,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage, tabTo } from './browser';
import { scripted } from './scripted-spec';

jest.setTimeout(300_000);

const WS = 'ops';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 36 item 7: the operations overview in headless Chromium against the
 * real platform (gateway, event-log, matcher, a runner; the local
 * OpenAI-compatible server for a model that costs, the MCP test server for a
 * call that parks). A scripted load makes a known number of runs complete and
 * fail, one park for approval, one wait for a fact, one wait in a queue and one spend; the page's
 * figures (its tables and tiles, not a screenshot) must show exactly those,
 * then change live — with every read of the overview held back — as a new run
 * completes and the approval is decided.
 */
describe('issue 36: the operations overview (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let openai: LocalOpenAiServer;
  let mcp: TestMcpHttpServer;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    browser = await launchBrowser();
    mcp = await startTestMcpServer();
    // Every model call costs 100,000 input tokens at 1 USD per million: 0.10 USD.
    openai = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: 'spent', usage: { prompt_tokens: 100_000, completion_tokens: 0 } }) });
    platform = await startTestPlatform({
      matcher: true,
      runners: 1,
      env: {
        RUNNER_MCP_ALLOW_PRIVATE: 'true',
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_API_KEY: 'sk-local',
        MODEL_MAX_ATTEMPTS: '1',
        MODEL_PRICES: JSON.stringify({ 'm-spend': { input: 1, output: 0 } }),
      },
    });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    const agents = [
      scripted('worker', 'job.done', [{ say: 'done' }]),
      // Two turns' worth of script in a budget of one: every run fails max_turns_reached.
      scripted('flaky', 'job.flaky', [{ say: 'trying' }, { say: 'again' }], { budget: { maxTurns: 1 } }),
      scripted('deployer', 'deploy.requested', [{ say: 'deploying', tool: 'web.echo', arguments: { text: 'deploy' } }, { say: 'deployed' }], {
        tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcp.url }] },
      }),
      // Its first run outlasts the test: the second waits in its lane.
      scripted('slow-lane', 'job.slow', [{ say: 'working' }, { say: 'done' }], {}, 120_000),
      // Parks on a wait for a fact that never comes (issue 30): counted as waiting.
      scripted('waiter', 'job.wait', [{ say: 'waiting', tool: 'platform.wait_for_event', arguments: { kind: 'never.happens', timeoutMs: 600_000 } }, { say: 'done' }], {
        tools: { platform: ['wait_for_event'] },
      }),
      { name: 'spender', instructions: 'Spend.', model: { provider: 'openai', name: 'm-spend' }, triggers: [{ kind: 'job.spend' }], budget: { perDayUsd: 1, perRunUsd: 0.5 } },
    ];
    for (const spec of agents) {
      const created = await admin('POST', `${base}/agents`, spec);
      expect(created.status).toBe(201);
      ids[spec.name] = created.body.id;
    }
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await mcp?.close();
    await openai?.close();
  });

  const post = async (kind: string, id: string) => expect((await admin('POST', `${base}/events`, { kind, subject: { type: 'job', id } })).status).toBe(202);
  const runs = async (agent: string) => (await admin('GET', `${base}/runs?agentId=${ids[agent]}&limit=200`)).body.runs as Array<{ id: string; status: string; reason: string | null }>;
  const statusesOf = async (agent: string) => (await runs(agent)).map((run) => run.status).sort();
  const cell = (table: string, status: string) => page.locator(`[data-testid="${table}"] tfoot td[data-status="${status}"]`);
  /** Waits until the window's total of `status` reads `count` (the table is in the page whether its disclosure is open or not). */
  const totalShows = (status: string, count: number, timeout = 30_000) => cell('runs-table', status).filter({ hasText: new RegExp(`^${count}$`) }).waitFor({ state: 'attached', timeout });

  it("shows the scripted load's figures: runs by status, failure rate, p95, spend against the budget, the queue and the parked approval", async () => {
    for (let n = 1; n <= 4; n++) await post('job.done', `D-${n}`);
    for (let n = 1; n <= 3; n++) await post('job.flaky', `F-${n}`);
    for (let n = 1; n <= 2; n++) await post('job.spend', `S-${n}`);
    for (let n = 1; n <= 2; n++) await post('job.slow', `W-${n}`);
    await post('deploy.requested', 'R-1');
    await post('job.wait', 'A-1');
    const settled = { timeoutMs: 90_000, intervalMs: 250 };
    await waitFor(async () => (await statusesOf('worker')).join() === 'completed,completed,completed,completed', { ...settled, what: 'four runs completed' });
    const failed = await waitFor(async () => {
      const all = await runs('flaky');
      return all.length === 3 && all.every((run) => run.status === 'failed') && all;
    }, { ...settled, what: 'three runs failed' });
    expect(failed.map((run) => run.reason)).toEqual(['max_turns_reached', 'max_turns_reached', 'max_turns_reached']);
    await waitFor(async () => (await statusesOf('spender')).join() === 'completed,completed', { ...settled, what: 'two spending runs completed' });
    await waitFor(async () => (await statusesOf('slow-lane')).join() === 'queued,running', { ...settled, what: 'one run running, one queued' });
    await waitFor(async () => (await statusesOf('deployer')).join() === 'awaiting_approval', { ...settled, what: 'a run parked' });
    await waitFor(async () => (await statusesOf('waiter')).join() === 'awaiting_event', { ...settled, what: 'a run waiting for a fact' });

    page = await signedInPage(browser, platform.gatewayUrl, (await admin('POST', `${base}/tokens`, { name: 'wall', role: 'viewer' })).body.token);
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await totalShows('completed', 6);
    expect(await cell('runs-table', 'failed').textContent()).toBe('3');
    expect(await cell('runs-table', 'cancelled').textContent()).toBe('0');
    expect(await cell('runs-table', 'dropped').textContent()).toBe('0');
    expect(await page.getByTestId('tile-ended').getAttribute('data-value')).toBe('9');
    expect(Number(await page.getByTestId('tile-failure-rate').getAttribute('data-value'))).toBeCloseTo(3 / 9, 6);
    expect(await page.getByTestId('failure-rate-window').textContent()).toBe('33.3 %');
    expect(Number(await page.getByTestId('tile-p95').getAttribute('data-value'))).toBeGreaterThan(0);
    // The runs table's minutes add up to the window's totals.
    const perMinute = await page.locator('[data-testid="runs-table"] tbody td[data-status="completed"]').allTextContents();
    expect(perMinute.reduce((sum, n) => sum + Number(n), 0)).toBe(6);

    const spender = page.locator(`[data-testid="spend-table"] tr[data-agent-id="${ids.spender}"]`);
    expect(await spender.locator('td').nth(1).textContent()).toBe('$1.00');
    expect(await spender.locator('td').last().textContent()).toBe('$0.2000');
    const lane = page.locator(`[data-testid="queues-table"] tr[data-lane="agent:${ids['slow-lane']}"]`);
    expect(await lane.getByTestId('depth').textContent()).toBe('1');
    expect(await page.getByTestId('tile-pending').getAttribute('data-value')).toBe('1');
    expect(await page.getByTestId('tile-awaiting-event').getAttribute('data-value')).toBe('1');
    expect(await page.getByTestId('tile-awaiting-event').locator('dt').textContent()).toBe('Waiting for a fact');
    expect(await page.getByTestId('approvals-total').textContent()).toBe('1');
    expect(await page.locator('[data-testid="approvals-table"] tr[data-age="< 1 min"] td').last().textContent()).toMatch(/^[01]$/);

    // Every chart drew on its canvas.
    for (const id of ['runs', 'failure-rate', 'duration', 'spend', 'queues', 'approvals']) {
      const width = await page.getByTestId(`chart-${id}`).locator('canvas').evaluate((canvas) => (canvas as unknown as { width: number }).width);
      expect({ id, drawn: width > 100 }).toEqual({ id, drawn: true });
    }
    await screenshot(page, 'overview');
  });

  it('counts a new run and the decided approval live, with every read of the overview held back', async () => {
    const held: Route[] = [];
    await page.route('**/overview?*', (route) => void held.push(route));
    await post('job.done', 'D-5');
    await totalShows('completed', 7, 60_000);
    expect(await page.getByTestId('tile-ended').getAttribute('data-value')).toBe('10');

    const [approval] = (await admin('GET', `${base}/approvals?status=pending`)).body.approvals;
    expect((await admin('POST', `${base}/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
    await page.locator('[data-testid="tile-pending"][data-value="0"]').waitFor({ timeout: 60_000 });
    // The approved run resumes and completes: one more, live.
    await totalShows('completed', 8, 60_000);
    // Nothing was read meanwhile: the figures came from the facts. A burst asks one read, not one per fact.
    expect(held.length).toBeLessThanOrEqual(2);
    await page.unroute('**/overview?*');
    for (const route of held) await route.continue();
  });

  it('opens a chart\'s table by keyboard, reads another window, and fits a phone', async () => {
    const table = page.getByTestId('chart-runs').locator('summary');
    await tabTo(page, table);
    await page.keyboard.press('Enter');
    await page.getByTestId('runs-table').waitFor({ state: 'visible' });

    await page.getByRole('combobox', { name: 'Window' }).selectOption('15');
    await totalShows('completed', 8);
    expect(await page.locator('[data-testid="chart-runs"] .u-over').count()).toBe(1);

    await page.setViewportSize({ width: 390, height: 844 });
    await waitFor(async () => (await page.getByTestId('chart-runs').locator('canvas').evaluate((canvas) => (canvas as unknown as { clientWidth: number }).clientWidth)) < 390, {
      what: 'the chart resized to the phone',
    });
    // No horizontal scroll of the page itself: a wide table scrolls in its own box.
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth)).toBe(true);
    await screenshot(page, 'overview-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
