import type { Browser, BrowserContext, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, tabTo } from './browser';

jest.setTimeout(240_000);

type Api = ReturnType<typeof apiClient>;
const WS = 'acme';
const base = `/v1/workspaces/${WS}`;

const agentSpec = (name: string, instructions = 'Summarise the build.') => ({
  name,
  instructions,
  model: { provider: 'scripted', name: 'demo', params: { stepMs: 150 } },
  script: [{ say: 'The build passed.' }],
  triggers: [{ kind: 'build.finished' }],
});

/**
 * Issue 16: the fleet web UI in headless Chromium against the real platform
 * (gateway, event-log, matcher and runner as processes): sign in with a
 * token, watch a run appear and complete live, the kill switch, an invalid
 * edit refused at its path, a version diff, tenancy between two workspaces,
 * CSRF and sign-out. Screenshots of each page are taken on the way.
 */
describe('issue 16: the fleet web UI (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let admin: Api;
  let adminToken: string;
  let otherToken: string;
  let agentId: string;
  let runId: string;

  beforeAll(async () => {
    // One after the other: the UI build and the services starting would compete for the CPU.
    browser = await launchBrowser();
    platform = await startTestPlatform({ matcher: true, runners: 1 });
    adminToken = await platform.createWorkspace(WS);
    otherToken = await platform.createWorkspace('globex');
    admin = apiClient(platform.gatewayUrl, adminToken);
    const created = await admin('POST', `${base}/agents`, agentSpec('build-summary'));
    expect(created.status).toBe(201);
    agentId = created.body.id;
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const url = (path: string) => `${platform.gatewayUrl}${path}`;

  it('serves the built page: index.html not cached, hashed assets immutable, the API untouched', async () => {
    const index = await fetch(url('/agents/some-id'));
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const script = await fetch(url(asset));
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(url('/assets/missing-0000.js'))).status).toBe(404);
    const api = await fetch(url('/v1/nothing-here'));
    expect({ status: api.status, type: api.headers.get('content-type') }).toEqual({ status: 404, type: expect.stringContaining('application/json') });
  });

  it('signs in with a pasted token', async () => {
    await page.goto(url('/'));
    await page.getByLabel('API token').waitFor();
    await screenshot(page, 'sign-in');
    await page.getByLabel('API token').fill('sy_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'UNAUTHENTICATED' }).waitFor();
    await page.getByLabel('API token').fill(adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    await page.getByTestId('live-status').filter({ hasText: 'live' }).waitFor();
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'sy_session', httpOnly: true, sameSite: 'Strict' });
    // The page cannot read its own session cookie.
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe('');
  });

  it('shows a run of a fact posted by API within a second, and its completion, without a reload', async () => {
    await page.evaluate(() => ((globalThis as any).marker = 'same page'));
    // A row shows its trigger as the run keeps it: the page never reads a run's fact for it.
    const factReads: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (/\/events\/[0-9a-f-]{36}$/.test(new URL(request.url()).pathname)) factReads.push(request.url());
    };
    page.on('request', onRequest);
    // A latency on a machine shared with other test runs: the best of up to three facts must be within a second.
    const appeared: number[] = [];
    for (let build = 1; build <= 3 && !appeared.some((ms) => ms < 1_000); build++) {
      const rows = page.locator('table[data-testid="runs"] tbody tr');
      const before = await rows.count();
      const posted = await admin('POST', `${base}/events`, { kind: 'build.finished', subject: { type: 'build', id: `104${build}` }, payload: { ok: true } });
      expect(posted.status).toBe(202);
      const acceptedAt = Date.now();
      await rows.nth(before).waitFor({ timeout: 10_000 });
      appeared.push(Date.now() - acceptedAt);
      // Newest first: the new run is the first row.
      runId = (await rows.first().getAttribute('data-run-id'))!;
      await rows.first().getByText(`build/104${build}`).waitFor();
      await page.locator(`tr[data-run-id="${runId}"][data-status="completed"]`).waitFor({ timeout: 30_000 });
    }
    await page.locator(`tr[data-run-id="${runId}"]`).getByText('build.finished').waitFor();
    page.off('request', onRequest);
    expect(factReads).toEqual([]);
    expect(await page.evaluate(() => (globalThis as any).marker)).toBe('same page');
    expect((await admin('GET', `${base}/runs/${runId}`)).body.status).toBe('completed');
    console.log(`fleet: run row visible ${appeared.join(', ')} ms after the fact's 202`);
    expect(Math.min(...appeared)).toBeLessThan(1_000);
    await screenshot(page, 'fleet');
  });

  it('misses no run that ends while the page is still opening its live stream', async () => {
    // The stream's request is held until a run has been recorded from start to end: a first page read
    // before the stream's start is fixed would not have it, and the stream would start after it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const streamAsked = new Promise<void>((resolve) => (asked = resolve));
    const stream = /\/v1\/workspaces\/acme\/stream(\?|$)/;
    await page.route(stream, async (route) => {
      asked();
      await held;
      await route.continue();
    });
    try {
      await page.reload();
      await streamAsked;
      expect((await admin('POST', `${base}/events`, { kind: 'build.finished', subject: { type: 'build', id: '2001' } })).status).toBe(202);
      const run = await waitFor(async () => {
        const runs = (await admin('GET', `${base}/runs?agentId=${agentId}&status=completed&limit=200`)).body.runs as Array<{ id: string; trigger: { subject: { id: string } } | null }>;
        return runs.find((r) => r.trigger?.subject.id === '2001');
      }, { timeoutMs: 30_000, what: 'the run of build 2001 completed' });
      release();
      await page.getByTestId('live-status').filter({ hasText: 'live' }).waitFor();
      await page.locator(`tr[data-run-id="${run.id}"][data-status="completed"]`).waitFor({ timeout: 10_000 });
    } finally {
      release();
      await page.unroute(stream);
    }
  });

  it('shows the run: its triggering fact, causation and transcript', async () => {
    await page.locator(`tr[data-run-id="${runId}"] a`).first().click();
    await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor();
    await page.getByTestId('transcript').getByText('The build passed.').waitFor();
    await page.getByTestId('causation').getByText('build.finished').waitFor();
    await page.getByRole('button', { name: 'Retry' }).waitFor();
    await screenshot(page, 'run-detail');
  });

  it('pauses every agent with the kill switch, after a confirmation, and resumes', async () => {
    await page.getByRole('link', { name: 'Fleet' }).click();
    await page.getByRole('button', { name: 'Pause all agents' }).click();
    const dialog = page.getByRole('dialog', { name: 'confirm kill switch' });
    await dialog.waitFor();
    // Nothing changes before the confirmation.
    expect((await admin('GET', `${base}/settings`)).body.agentsPaused).toBe(false);
    await screenshot(page, 'fleet-kill-switch');
    await dialog.getByRole('button', { name: 'Yes, pause all' }).click();
    await page.getByTestId('agents-state').filter({ hasText: 'All agents paused' }).waitFor();
    expect((await admin('GET', `${base}/settings`)).body.agentsPaused).toBe(true);
    // By keyboard: Tab reaches the switch, Enter opens the confirmation, whose confirm button has the focus.
    await tabTo(page, page.getByRole('button', { name: 'Resume agents' }));
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, resume' }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('agents-state').filter({ hasText: 'Agents running' }).waitFor();
    expect((await admin('GET', `${base}/settings`)).body.agentsPaused).toBe(false);
  });

  it('refuses an invalid spec with the error at its path and saves nothing', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.locator(`tr[data-agent-id="${agentId}"]`).getByText('build-summary').waitFor();
    await screenshot(page, 'agents');
    await page.locator(`tr[data-agent-id="${agentId}"] a`).first().click();
    await page.getByRole('button', { name: 'Edit' }).click();
    const spec = JSON.parse(await page.getByLabel('Spec (JSON)').inputValue());
    spec.budget.maxTurns = 0;
    await page.getByLabel('Spec (JSON)').fill(JSON.stringify(spec, null, 2));
    await page.getByRole('button', { name: 'Save as v2' }).click();
    const issues = page.getByTestId('spec-issues');
    await issues.waitFor();
    expect(await issues.locator('.issue-path').allTextContents()).toEqual(['budget.maxTurns']);
    await screenshot(page, 'agent-edit-error');
    const after = await admin('GET', `${base}/agents/${agentId}`);
    expect(after.body.version).toBe(1);
    expect((await admin('GET', `${base}/agents/${agentId}/versions`)).body.versions).toHaveLength(1);
  });

  it('saves a valid edit as a new version and shows the diff between two versions', async () => {
    const spec = JSON.parse(await page.getByLabel('Spec (JSON)').inputValue());
    spec.budget.maxTurns = 5;
    spec.instructions = 'Summarise the build in one line.';
    await page.getByLabel('Spec (JSON)').fill(JSON.stringify(spec, null, 2));
    await page.getByRole('button', { name: 'Save as v2' }).click();
    await page.getByTestId('versions').getByText('v2').waitFor();
    const diff = page.getByTestId('version-diff');
    await diff.locator('.add', { hasText: 'Summarise the build in one line.' }).waitFor();
    await diff.locator('.del', { hasText: '"instructions": "Summarise the build."' }).waitFor();
    expect((await admin('GET', `${base}/agents/${agentId}`)).body.version).toBe(2);
    await screenshot(page, 'agent-detail');
  });

  it('browses facts by kind glob and opens one with the runs it activated', async () => {
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByLabel('Kind glob').fill('build.*');
    await page.getByRole('button', { name: 'Apply' }).click();
    const row = page.locator('table[data-testid="events"] tbody tr');
    await row.first().getByText('build.finished').waitFor();
    expect(await row.count()).toBeGreaterThanOrEqual(1);
    expect(await row.locator('code').allTextContents()).toEqual(Array((await row.count())).fill('build.finished'));
    await screenshot(page, 'events');
    await row.first().getByRole('link').click();
    await page.getByTestId('activated-runs').getByText('build-summary').waitFor();
    await screenshot(page, 'event-detail');
  });

  it('is usable at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Fleet' }).click();
    // The fleet's rows, whichever are first now (earlier tests started more runs).
    await page.locator('tr[data-run-id]').first().waitFor();
    // No horizontal scroll of the page itself.
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth)).toBe(true);
    await screenshot(page, 'fleet-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('refuses a mutating request made with the cookie but without the CSRF token', async () => {
    const answer = await page.evaluate(async (path) => {
      const response = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'csrf.probe', subject: { type: 'x', id: '1' }, payload: {} }) });
      return { status: response.status, body: await response.json() };
    }, `${base}/events`);
    expect(answer).toMatchObject({ status: 403, body: { error: { code: 'CSRF_TOKEN_INVALID' } } });
    expect((await admin('GET', `${base}/events?kind=csrf.probe`)).body.events).toHaveLength(0);
  });

  it('shows a session of another workspace nothing of this one, in pages and through the API', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const otherPage = await other.newPage();
      await otherPage.goto(url('/'));
      await otherPage.getByLabel('API token').fill(otherToken);
      await otherPage.getByRole('button', { name: 'Sign in' }).click();
      await otherPage.getByTestId('workspace').filter({ hasText: 'globex' }).waitFor();
      await otherPage.getByText('No runs yet.').waitFor();
      await otherPage.goto(url(`/runs/${runId}`));
      await otherPage.getByRole('alert').filter({ hasText: 'RUN_NOT_FOUND' }).waitFor();
      await otherPage.goto(url(`/agents/${agentId}`));
      await otherPage.getByRole('alert').filter({ hasText: 'AGENT_NOT_FOUND' }).waitFor();
      const probe = await otherPage.evaluate(async (paths) => Promise.all(paths.map(async (p) => (await fetch(p, { credentials: 'same-origin' })).status)), [`${base}/runs`, `${base}/agents`, `${base}/events`, `${base}/stream`]);
      expect(probe).toEqual([403, 403, 403, 403]);
    } finally {
      await other.close();
    }
  });

  it('signs out: the page shows sign-in and the API refuses the old cookie', async () => {
    const [cookie] = await context.cookies();
    const headers = { cookie: `${cookie!.name}=${cookie!.value}` };
    expect((await fetch(url(`${base}/runs`), { headers })).status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await context.cookies()).toHaveLength(0);
    await waitFor(async () => (await fetch(url(`${base}/runs`), { headers })).status === 401, { timeoutMs: 5_000, what: 'the old cookie refused' });
    expect((await fetch(url('/v1/session'), { headers })).status).toBe(401);
  });
});
