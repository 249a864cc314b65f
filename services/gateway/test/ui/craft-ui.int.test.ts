import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { craftingEnv, NIGHTLY_AND_MORE_THAN_TWO, turnMessage } from '../craft-script';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'lab';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 32 item 1 (decision 0056): an agent crafted in three messages on
 * `/agents/craft` in headless Chromium. Each message is a crafting run of the
 * built-in crafting agent on a runner process, its model the platform's
 * scripted provider; the try is a run too. The first answer's remark is held
 * back 3 s, so the patch is seen on the canvas while the answer is still
 * streaming. The conversation is then in the fleet, with its transcript.
 */
describe('issue 32: conversational crafting in the browser (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  const craftRuns = async () =>
    ((await admin('GET', `${base}/runs?limit=100`)).body.runs as Array<{ id: string; agentId: string; sessionId: string; origin: { type: string }; status: string }>).filter((run) => run.origin.type === 'craft');

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ env: craftingEnv(3_000) });
    // The runner reaches the gateway's /mcp: a crafting turn's try goes through it (try_crafted_draft).
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    // Three scorecards: the newest has 4 failures but is not nightly; the nightly one with 5 is "the last one".
    for (const [id, failedCases, suite] of [['S-1', 1, 'nightly'], ['S-2', 5, 'nightly'], ['S-3', 4, 'smoke']] as const) {
      expect((await admin('POST', `${base}/events`, { kind: 'scorecard.completed', subject: { type: 'scorecard', id }, payload: { failedCases, suite } })).status).toBe(202);
    }
    await waitFor(async () => (await admin('GET', `${base}/events?kind=scorecard.completed`)).body.events?.length === 3, { what: 'the scorecards stored' });
    page = await signedInPage(browser, platform.gatewayUrl, token, { width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const canvas = () => page.getByRole('region', { name: 'canvas' });
  const chat = () => page.getByRole('region', { name: 'chat' });
  const send = async (text: string) => {
    await chat().getByLabel('Message').fill(text);
    await chat().getByRole('button', { name: 'Send' }).click();
  };
  const patchesShown = (n: number) =>
    page
      .locator(`[data-testid="canvas"][data-patches="${n}"]`)
      .waitFor({ timeout: 30_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\npage: ${await page.locator('main').innerText()}`);
      });

  it('crafts an agent in three messages: patches stream onto the canvas, a hand edit is kept, the try shows its shadow result, Save makes the agent', async () => {
    await page.goto(`${platform.gatewayUrl}/agents`);
    await page.getByRole('link', { name: 'Craft an agent' }).click();
    await page.getByRole('heading', { name: 'Craft an agent' }).waitFor();

    await send('watch scorecards with more than 2 failures');
    await patchesShown(1);
    // Applied while the answer is still streaming: its remark is 3 s behind, and Send waits for it.
    expect(await chat().getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(await canvas().getByLabel('Kind').inputValue()).toBe('scorecard.completed');
    expect(JSON.parse(await canvas().getByLabel('Filter (JSON)').inputValue())).toEqual({ path: 'payload.failedCases', op: 'gt', value: 2 });
    await chat().getByTestId('craft-patch').first().waitFor();
    await chat().getByText('Watching scorecard.completed with more than 2 failed cases.').waitFor();

    // A hand edit, then the next message: the model is sent the edited canvas and its patch is applied over it.
    await canvas().getByLabel('Name').fill('nightly-scorecards');
    await send('only in the nightly suite');
    await patchesShown(2);
    expect(await canvas().getByLabel('Name').inputValue()).toBe('nightly-scorecards');
    expect(JSON.parse(await canvas().getByLabel('Filter (JSON)').inputValue())).toEqual(NIGHTLY_AND_MORE_THAN_TWO);
    // The turn was sent the canvas with the hand edit (its first message, in its transcript).
    const turn = (await craftRuns())[0]!;
    const entries = (await admin('GET', `${base}/runs/${turn.id}/transcript`)).body.entries as Array<{ type: string; content: { text?: string } }>;
    expect(turnMessage(entries.filter((entry) => entry.type === 'user').at(-1)!.content.text!)).toMatchObject({ text: 'only in the nightly suite', canvas: { name: 'nightly-scorecards' } });
    await chat().getByText('Only the nightly suite now.').waitFor();

    await send('try it on the last one');
    const tryRun = chat().getByTestId('try-run');
    await tryRun
      .getByTestId('try-status')
      .filter({ hasText: 'completed' })
      .waitFor({ timeout: 60_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\nchat: ${await chat().innerText()}`);
      });
    await tryRun
      .getByTestId('transcript')
      .getByText('flagging S-2: 5 failed in nightly')
      .waitFor()
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\ntry: ${await tryRun.innerText()}`);
      });
    await screenshot(page, 'agent-craft');

    // A phone: one column, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('heading', { name: 'Craft an agent' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'agent-craft-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Save as a new agent' }).click();
    await page.waitForURL(/\/agents\/[0-9a-f-]{36}$/);
    const agentId = page.url().split('/').at(-1)!;
    const agent = (await admin('GET', `${base}/agents/${agentId}`)).body;
    expect(agent).toMatchObject({ version: 1, enabled: false, spec: { name: 'nightly-scorecards', triggers: [{ kind: 'scorecard.completed', filter: NIGHTLY_AND_MORE_THAN_TWO }] } });

    // Crafting a saved agent: Save is a new version of it.
    await page.getByRole('link', { name: 'Craft' }).click();
    await page.getByRole('heading', { name: 'Craft nightly-scorecards' }).waitFor();
    await canvas().getByLabel('Max turns').fill('5');
    await send('only in the nightly suite');
    await patchesShown(1);
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.waitForURL(new RegExp(`/agents/${agentId}$`));
    expect((await admin('GET', `${base}/agents/${agentId}`)).body).toMatchObject({ version: 2, spec: { budget: { maxTurns: 5 }, triggers: [{ filter: NIGHTLY_AND_MORE_THAN_TWO }] } });
  });

  it('offers a viewer no crafting, and refuses one who opens the page by its address: neither a message nor Save goes through', async () => {
    const created = await admin('POST', `${base}/tokens`, { name: 'reader', role: 'viewer' });
    const asViewer = await signedInPage(browser, platform.gatewayUrl, created.body.token);
    await asViewer.goto(`${platform.gatewayUrl}/agents`);
    await asViewer.getByRole('heading', { name: 'Agents' }).waitFor();
    expect(await asViewer.getByRole('link', { name: 'Craft an agent' }).count()).toBe(0);
    await asViewer.goto(`${platform.gatewayUrl}/agents/craft`);
    const asked = (await craftRuns()).length;
    await asViewer.getByLabel('Message').fill('watch scorecards with more than 2 failures');
    await asViewer.getByRole('button', { name: 'Send' }).click();
    await asViewer.getByText('FORBIDDEN', { exact: false }).first().waitFor();
    await asViewer.getByRole('button', { name: 'Save as a new agent' }).click();
    await waitFor(async () => (await asViewer.getByRole('alert').allTextContents()).some((text) => text.startsWith('FORBIDDEN')), { what: 'Save refused' });
    expect((await craftRuns()).length).toBe(asked);
    const agents = (await admin('GET', `${base}/agents`)).body.agents as Array<{ spec: { name: string } }>;
    expect(agents.map((agent) => agent.spec.name).sort()).toEqual(['nightly-scorecards', 'switchyard-crafting']);
    await asViewer.context().close();
  });

  it("keeps the conversation in the fleet: the turns under the built-in crafting agent, each with its transcript; another workspace's member cannot open one", async () => {
    const turns = await craftRuns();
    expect(turns.length).toBeGreaterThanOrEqual(4);
    expect(new Set(turns.slice(1).map((run) => run.sessionId)).size).toBe(1);
    await page.goto(`${platform.gatewayUrl}/`);
    await page.getByTestId('craft-turn').filter({ hasText: 'crafting: only in the nightly suite' }).first().waitFor({ timeout: 30_000 });
    await page.goto(`${platform.gatewayUrl}/agents`);
    await page.locator('tr', { hasText: 'switchyard-crafting' }).getByTestId('built-in').waitFor();
    // Newest first: the saved agent's conversation, then the three messages of the first one.
    const nightly = turns[2]!;
    await page.goto(`${platform.gatewayUrl}/runs/${nightly.id}`);
    await page.getByTestId('transcript').getByText('Only the nightly suite now.').waitFor({ timeout: 30_000 });
    expect(new Set(turns.map((run) => run.agentId)).size).toBe(1);

    const otherToken = await platform.createWorkspace('elsewhere');
    const outsider = await signedInPage(browser, platform.gatewayUrl, otherToken);
    await outsider.goto(`${platform.gatewayUrl}/runs/${nightly.id}`);
    await outsider.getByText('RUN_NOT_FOUND', { exact: false }).first().waitFor({ timeout: 30_000 });
    expect((await apiClient(platform.gatewayUrl, otherToken)('GET', `/v1/workspaces/elsewhere/runs/${nightly.id}/transcript`)).status).toBe(404);
    await outsider.context().close();
  });
});
