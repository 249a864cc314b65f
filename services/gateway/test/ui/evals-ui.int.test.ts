import type { Browser, Page } from 'playwright-core';
import { apiClient, startLocalOpenAiServer, startTestPlatform, waitFor, type LocalOpenAiServer, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage, tabTo } from './browser';

jest.setTimeout(400_000);

const WS = 'lab';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 35 in the web UI (decision 0058), in headless Chromium against the
 * real gateway, event-log and runner: facts picked on the events page become
 * a suite whose expectations are written in the page; an eval started from
 * the agent's page streams its trials in and ends with the verdict and the
 * cases that drove it; the agent page shows the gate blocked. Version 1
 * answers fast and version 2 slowly, so version 1's trials are on the page
 * while the eval still runs. A viewer sees all of it and starts nothing.
 */
describe('issue 35: evals in the web UI (headless Chromium)', () => {
  let platform: TestPlatform;
  let judge: LocalOpenAiServer;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let viewerToken: string;
  let agentId: string;
  let suiteId: string;
  let evalId: string;
  const seqs: number[] = [];

  const spec = (paging: boolean, extra: Record<string, unknown> = {}) => ({
    name: 'triage',
    instructions: 'Triage the ticket.',
    // Version 2 is slow: its trials end well after version 1's.
    model: { provider: 'scripted', name: 'script', params: { stepMs: paging ? 4_000 : 20 } },
    script: [
      ...(paging ? [{ tool: 'platform.emit_event', arguments: { kind: 'ticket.paged', subject: { type: 'ticket', id: '{{event.subject.id}}' } }, when: { path: 'payload.priority', op: 'eq', value: 'high' } }] : []),
      { say: 'triaged {{event.subject.id}}' },
    ],
    tools: { platform: ['emit_event'] },
    triggers: [{ kind: 'ticket.opened' }],
    enabled: false,
    ...extra,
  });

  beforeAll(async () => {
    browser = await launchBrowser();
    // The judge of the case that has one: it passes every trial, with its reason.
    judge = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: JSON.stringify({ pass: true, reason: 'a calm triage' }), toolCalls: [], usage: { prompt_tokens: 10, completion_tokens: 0 } }) });
    platform = await startTestPlatform({ runners: 1, env: { EVAL_JUDGE_BASE_URL: judge.baseUrl, EVAL_JUDGE_PRICES: JSON.stringify({ 'judge-1': { input: 1000, output: 0 } }) } });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    viewerToken = (await admin('POST', `${base}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    agentId = (await admin('POST', `${base}/agents`, spec(false))).body.id;
    for (const [i, priority] of ['low', 'high', 'low'].entries()) {
      const posted = await admin('POST', `${base}/events`, { kind: 'ticket.recorded', subject: { type: 'ticket', id: `T-${i}` }, payload: { priority } });
      expect(posted.status).toBe(202);
    }
    await waitFor(async () => (await admin('GET', `${base}/events?kind=ticket.recorded`)).body.events?.length === 3, { what: 'the facts recorded', timeoutMs: 60_000 });
    seqs.push(...(await admin('GET', `${base}/events?kind=ticket.recorded`)).body.events.map((f: { seq: number }) => f.seq));
    page = await signedInPage(browser, platform.gatewayUrl, token);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await judge?.close();
  });

  it('builds a suite from facts picked on the events page, writing the expectations', async () => {
    await page.goto(`${platform.gatewayUrl}/events`);
    // Keyboard: the first pick box is reached with Tab and ticked with Space.
    const first = page.getByLabel(`pick #${seqs[0]} for an eval suite`);
    await tabTo(page, first);
    await page.keyboard.press('Space');
    for (const seq of seqs.slice(1)) await page.getByLabel(`pick #${seq} for an eval suite`).check();
    await page.getByTestId('picked').getByRole('link', { name: 'New eval suite from these 3 facts' }).click();
    await page.getByRole('heading', { name: 'New eval suite' }).waitFor();
    const form = page.getByRole('form', { name: 'eval suite' });
    await form.getByLabel('Name').fill('triage basics');
    for (let i = 0; i < 3; i++) {
      const c = page.getByTestId(`case-${i}`);
      await c.getByText('ticket.recorded').waitFor();
      await c.getByLabel('Must not call (a tool a line)').fill('platform.emit_event');
      await c.getByLabel('Summary includes').fill('triaged');
    }
    // A call whose arguments are not JSON is refused in the page.
    await page.getByTestId('case-0').getByLabel('Would call (a tool a line; JSON arguments after it)').fill('platform.emit_event {nope');
    await form.getByRole('button', { name: 'Create suite' }).click();
    await page.getByRole('alert').filter({ hasText: 'are not JSON' }).waitFor();
    await page.getByTestId('case-0').getByLabel('Would call (a tool a line; JSON arguments after it)').fill('');
    await form.getByRole('button', { name: 'Create suite' }).click();
    await page.getByTestId('suite-version').filter({ hasText: 'v1' }).waitFor();
    suiteId = page.url().split('/').at(-1)!;
    const saved = (await admin('GET', `${base}/eval-suites/${suiteId}`)).body;
    expect(saved.cases).toHaveLength(3);
    expect(saved.cases[0].expect).toEqual({ wouldNotCall: ['platform.emit_event'], status: 'completed', summaryIncludes: 'triaged' });

    // Editing the expectations saves the next version: a ceiling on tokens, and a judge.
    await page.getByTestId('case-2').getByLabel('Max tokens').fill('10000');
    await page.getByTestId('case-2').getByLabel('Judge model (optional)').fill('judge-1');
    await page.getByTestId('case-2').getByLabel('Judge rubric').fill('Was the triage calm?');
    await form.getByRole('button', { name: 'Save next version' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as v2.' }).waitFor();
    expect((await admin('GET', `${base}/eval-suites/${suiteId}`)).body.cases[2]).toMatchObject({ expect: { maxTokens: 10_000 }, judge: { model: 'judge-1', rubric: 'Was the triage calm?' } });
    // At a phone's width the suite's page and the events page with their pick boxes fit.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.goto(`${platform.gatewayUrl}/events`);
    await page.getByLabel(`pick #${seqs[0]} for an eval suite`).waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${platform.gatewayUrl}/eval-suites`);
    await page.getByTestId('eval-suites').getByRole('link', { name: 'triage basics' }).waitFor();
  });

  it('starts an eval from the agent page: trials stream in, then the verdict and the cases that drove it; the gate blocks', async () => {
    // Version 2 pages on-call for high priority, and the agent is gated on the suite.
    expect((await admin('PUT', `${base}/agents/${agentId}`, spec(true, { evalGate: { suite: suiteId, trials: 5 } }))).body.version).toBe(2);
    await page.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await page.getByTestId('gate-state').filter({ hasText: 'blocked' }).waitFor();
    await page.getByTestId('eval-gate').getByText('no completed eval of this version').waitFor();
    const form = page.getByRole('form', { name: 'start an eval' });
    await form.getByLabel('Suite').selectOption({ label: 'triage basics (v2, 3 cases)' });
    await form.getByLabel('Version A').selectOption('1');
    await form.getByLabel('Against').selectOption('2');
    await form.getByLabel('Trials').fill('5');
    // A budget below the ceiling estimate is refused, nothing started.
    await form.getByLabel('Budget (USD)').fill('0.0001');
    await form.getByRole('button', { name: 'Start eval' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'EVAL_BUDGET_EXCEEDED' });
    await refusal.waitFor();
    // The refusal names the ceiling: 30 runs at the version's perRunUsd plus, for the judged case's
    // 10 trials, the most a judge call can cost (its prompt at the transcript's cap, at 1,000 USD per
    // million tokens). That ceiling, as the budget, is enough.
    const [, estimate, judges] = /the estimate is \$([0-9.]+), of which judges \$([0-9.]+)/.exec((await refusal.textContent())!)!;
    expect(Number(estimate)).toBeGreaterThan(Number(judges));
    expect(Number(judges)).toBeGreaterThan(10 * 16_000 * 1_000 / 1e6);
    await form.getByLabel('Budget (USD)').fill(estimate!);
    const start = form.getByRole('button', { name: 'Start eval' });
    await tabTo(page, start);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/evals\/[0-9a-f-]+$/);
    evalId = page.url().split('/').at(-1)!;

    // Version 1's trials arrive while version 2's still run.
    await page.waitForFunction(
      () => {
        const doc = (globalThis as any).document;
        return doc.querySelector('[data-testid="eval-status"]')?.textContent === 'running' && doc.querySelectorAll('[data-testid^="trial-"]').length > 0;
      },
      undefined,
      { timeout: 120_000, polling: 50 },
    );
    await screenshot(page, 'eval-running');
    await page.getByTestId('eval-status').filter({ hasText: 'completed' }).waitFor({ timeout: 240_000 });
    const verdict = page.getByTestId('eval-verdict');
    await verdict.getByText('worse').waitFor();
    await verdict.getByText('driven by case #1').waitFor();
    await page.getByTestId('eval-candidate').filter({ hasText: 'failing cases #1' }).waitFor();
    expect(await page.locator('[data-testid^="trial-"]').count()).toBe(30);
    expect(await page.getByTestId('rate-1-0').textContent()).toBe('100%');
    expect(await page.getByTestId('rate-1-1').textContent()).toBe('0%');
    expect(await page.getByTestId('eval-case-1').getAttribute('class')).toBe('changed-worse');
    await page.getByTestId('trial-1/1/0').getByText('wouldNotCall platform.emit_event: called').waitFor();
    // The judged case: each trial's reason, and what the judges cost (10 tokens at 1,000 USD per million, 10 trials).
    expect(await page.getByTestId('trial-2/1/4').getByTestId('judge-reason').textContent()).toBe(' judge: a calm triage');
    expect(await page.getByTestId('judge-reason').count()).toBe(10);
    await page.getByTestId('eval-spent').getByText('(judges $0.1000)').waitFor();
    await screenshot(page, 'eval-verdict');
    const settled = (await admin('GET', `${base}/evals/${evalId}`)).body;
    expect(settled.result.diff).toMatchObject({ verdict: 'worse', drivers: [1] });

    // At a phone's width the page fits.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await page.getByTestId('eval-gate').getByText('failing cases #1').waitFor();
    expect(await page.getByTestId('gate-state').textContent()).toBe('blocked');
    await page.getByTestId('agent-evals').getByText('worse (fails)').waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('form', { name: 'start an eval' }).getByRole('button', { name: 'Start eval' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows a viewer the suites, the eval and the gate, and offers none of the writes', async () => {
    const viewer = await signedInPage(browser, platform.gatewayUrl, viewerToken, { width: 390, height: 844 });
    await viewer.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await viewer.getByTestId('gate-state').filter({ hasText: 'blocked' }).waitFor();
    await viewer.getByText('A viewer sees evals but cannot start one.').waitFor();
    expect(await viewer.getByRole('form', { name: 'start an eval' }).count()).toBe(0);
    await viewer.goto(`${platform.gatewayUrl}/evals/${evalId}`);
    await viewer.getByTestId('eval-verdict').getByText('worse').waitFor();
    expect(await viewer.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await viewer.goto(`${platform.gatewayUrl}/eval-suites/${suiteId}`);
    await viewer.getByTestId('suite-version').filter({ hasText: 'v2' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Save|Create|Remove|Add case/ }).count()).toBe(0);
    expect(await viewer.getByTestId('case-0').getByLabel('Summary includes').isDisabled()).toBe(true);
    expect(await viewer.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await viewer.goto(`${platform.gatewayUrl}/events`);
    await viewer.getByTestId('events').locator('tbody tr').first().waitFor();
    expect(await viewer.getByLabel(/for an eval suite/).count()).toBe(0);
    // The API refuses a viewer's start, whatever the page offers.
    const refused = await apiClient(platform.gatewayUrl, viewerToken)('POST', `${base}/agents/${agentId}/evals`, { suite: suiteId, versions: [1], trials: 1, budgetUsd: 10 });
    expect(refused.status).toBe(403);
    await viewer.context().close();
  });
});
