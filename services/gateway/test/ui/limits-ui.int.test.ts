import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, tabTo } from './browser';
import { scripted } from './scripted-spec';

jest.setTimeout(300_000);

const WS = 'yard';
const base = `/v1/workspaces/${WS}`;

/** A step that records a fact through the platform's MCP tools: the next agent's run is caused by this one. */
const emit = (kind: string) => ({ tool: 'platform.emit_event', arguments: { kind, subject: { type: 'incident', id: '{{event.subject.id}}' } } });
const emitter = { permissionMode: 'bypass', tools: { platform: ['emit_event'] } };

/**
 * Issue 16: what the fleet UI shows of the platform's limits and of
 * causation, and how it behaves as runs stream in, in headless Chromium
 * against the real platform (gateway, event-log, matcher, a runner with the
 * platform's MCP tools): dropped runs with their reason and the status filter
 * reached by keyboard; spend, queue and cooldown against their limits; the
 * causation graph a few levels deep; no layout jump (decision 0029).
 */
describe('issue 16: limits, causation and live rows in the web UI (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ matcher: true });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    const agents = [
      // One run at a time, one waiting: the rest of a burst is dropped `queue_full`. Its first run outlasts the test's first two steps.
      scripted('slow-lane', 'job.submitted', [{ say: 'working' }, { say: 'done' }], { flow: { queueCap: 1 } }, 60_000),
      scripted('incident-lead', 'incident.opened', [emit('incident.triage'), { say: 'handed over' }], { ...emitter, flow: { cooldownMs: 60_000 } }),
      scripted('triage', 'incident.triage', [emit('incident.page'), { say: 'paged' }], emitter),
      scripted('pager', 'incident.page', [{ say: 'on call notified' }]),
      scripted('note-taker', 'note.posted', [{ say: 'noted' }]),
    ];
    for (const spec of agents) {
      const created = await admin('POST', `${base}/agents`, spec);
      expect(created.status).toBe(201);
      ids[spec.name] = created.body.id;
    }
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${platform.gatewayUrl}/`);
    // Signed in by keyboard: Tab reaches the token field and the button, Enter submits.
    await tabTo(page, page.getByLabel('API token'));
    await page.keyboard.type(token);
    await tabTo(page, page.getByRole('button', { name: 'Sign in' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const post = async (kind: string, id: string) => expect((await admin('POST', `${base}/events`, { kind, subject: { type: 'job', id } })).status).toBe(202);
  const runsOf = async (agent: string, status?: string) =>
    (await admin('GET', `${base}/runs?agentId=${ids[agent]}&limit=200${status ? `&status=${status}` : ''}`)).body.runs as Array<{ id: string; status: string; reason: string | null }>;

  it('shows dropped runs with their reason; the status filter, reached by keyboard, asks the API for them', async () => {
    for (let n = 1; n <= 4; n++) await post('job.submitted', `J-${n}`);
    const dropped = await waitFor(async () => {
      const runs = await runsOf('slow-lane');
      return runs.length === 4 && runs.filter((run) => run.status === 'dropped');
    }, { timeoutMs: 60_000, what: "the burst's runs recorded" });
    expect(dropped.length).toBeGreaterThanOrEqual(2);
    expect(dropped.map((run) => run.reason)).toEqual(dropped.map(() => 'queue_full'));
    await page.locator('tr[data-status="dropped"]').first().waitFor();

    await tabTo(page, page.getByRole('combobox', { name: 'Status' }));
    await page.keyboard.type('dropped');
    const rows = page.locator('table[data-testid="runs"] tbody tr');
    await waitFor(async () => (await rows.count()) === dropped.length && (await page.locator('tr[data-status]:not([data-status="dropped"])').count()) === 0, {
      what: 'only the dropped runs shown',
    });
    expect(new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id'))))).toEqual(new Set(dropped.map((run) => run.id)));
    expect(await rows.getByTestId('reason').allTextContents()).toEqual(dropped.map(() => ' queue_full'));
    await screenshot(page, 'fleet-dropped');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');
  });

  it("shows every limit: today's spend against perDayUsd, the queue against its cap, the cooldown — on the agents list and an agent's page", async () => {
    // The burst left one run waiting behind the running one — unless its three later facts were all
    // matched while the first run still waited, and all three were dropped: then one more fact waits.
    await waitFor(async () => (await runsOf('slow-lane', 'running')).length === 1, { timeoutMs: 30_000, what: 'the slow run started' });
    if ((await runsOf('slow-lane', 'queued')).length === 0) await post('job.submitted', 'J-5');
    const agent = await waitFor(async () => {
      const body = (await admin('GET', `${base}/agents/${ids['slow-lane']}`)).body;
      return body.usage.queuedRuns === 1 && body;
    }, { timeoutMs: 30_000, what: 'one run queued behind the running one' });
    expect(agent.usage).toEqual({ spentTodayUsd: 0, queuedRuns: 1 });
    await page.getByRole('link', { name: 'Agents' }).click();
    const row = page.locator(`tr[data-agent-id="${ids['slow-lane']}"]`);
    await row.getByTestId('queue-fill').filter({ hasText: '1 / 1 queued' }).waitFor();
    expect(await row.getByTestId('queue-fill').getAttribute('class')).toBe('error');
    expect(await row.getByTestId('spend-today').textContent()).toBe('$0.0000 / $20.00');
    await page.locator(`tr[data-agent-id="${ids['incident-lead']}"]`).getByText('60 s').waitFor();
    await screenshot(page, 'agents-limits');
    await row.getByRole('link', { name: 'slow-lane' }).click();
    const limits = page.getByTestId('limits');
    await limits.getByTestId('queue-fill').filter({ hasText: '1 / 1 queued' }).waitFor();
    expect(await limits.getByTestId('spend-today').textContent()).toBe('$0.0000 / $20.00');
    expect(await limits.getByTestId('cooldown').textContent()).toBe('off');
  });

  it('shows what caused a run and what it caused, levels deep, as a graph', async () => {
    await post('incident.opened', 'INC-1');
    const [pager] = await waitFor(async () => {
      const runs = await runsOf('pager', 'completed');
      return runs.length === 1 && runs;
    }, { timeoutMs: 90_000, what: 'the pager run completed' });
    const [lead] = await runsOf('incident-lead');
    const [triage] = await runsOf('triage');
    await page.goto(`${platform.gatewayUrl}/runs/${triage!.id}`);
    const graph = page.getByTestId('causation');
    await graph.getByText('incident.opened').waitFor();
    // Above: the lead's run, under the fact; below: the pager's run.
    await graph.locator(`a[data-run-id="${lead!.id}"]`).waitFor();
    await graph.getByTestId('this-run').getByText('this run').waitFor();
    await graph.getByTestId('caused').locator(`a[data-run-id="${pager!.id}"]`).waitFor();
    await page.goto(`${platform.gatewayUrl}/runs/${lead!.id}`);
    // Two levels below the lead: the pager's run nested under the triage's.
    const triageNode = graph.getByTestId('caused').locator('li', { has: page.locator(`a[data-run-id="${triage!.id}"]`) });
    await triageNode.locator(`a[data-run-id="${pager!.id}"]`).waitFor();
    await screenshot(page, 'run-causation');
  });

  it('does not jump as runs stream in: the header and columns stay put, and a scrolled reader keeps the row they look at', async () => {
    await page.setViewportSize({ width: 1280, height: 420 });
    await page.getByRole('link', { name: 'Fleet' }).click();
    const rows = page.locator('table[data-testid="runs"] tbody tr');
    await rows.first().waitFor();
    const boxes = async () => ({
      header: await page.locator('table[data-testid="runs"] thead').boundingBox(),
      columns: await page.locator('table[data-testid="runs"] thead th').evaluateAll((ths) => ths.map((th) => [Math.round(th.getBoundingClientRect().left), Math.round(th.getBoundingClientRect().width)])),
    });
    const before = await boxes();
    const count = await rows.count();
    for (let n = 1; n <= 6; n++) await post('note.posted', `N-${n}`);
    await rows.nth(count + 5).waitFor();
    await waitFor(async () => (await page.locator('tr[data-status="completed"]').count()) >= 6 + 3, { what: 'the notes completed', timeoutMs: 60_000 });
    // New rows at the top, statuses changing: the header and every column are where they were.
    expect(await boxes()).toEqual(before);

    // Scrolled into the list, the row under the reader's eye stays where it is while runs arrive above it.
    await page.mouse.wheel(0, 200);
    await waitFor(async () => (await page.evaluate(() => (globalThis as any).scrollY)) > 100, { what: 'the page scrolled' });
    const watched = rows.nth(4);
    const watchedId = (await watched.getAttribute('data-run-id'))!;
    const watchedRow = page.locator(`tr[data-run-id="${watchedId}"]`);
    const y = (await watchedRow.boundingBox())!.y;
    const total = await rows.count();
    for (let n = 7; n <= 9; n++) await post('note.posted', `N-${n}`);
    await rows.nth(total + 2).waitFor();
    expect(Math.abs((await watchedRow.boundingBox())!.y - y)).toBeLessThanOrEqual(1);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
