import type { Browser } from 'playwright-core';
import { startTestPlatform } from '@switchyard/testing';
import { craftingScript } from '../../services/gateway/test/craft-script';

/** The crafting model's fixed latency (issue 32's benchmark): the scripted provider's `stepMs`, each call. */
export const CRAFT_MODEL_LATENCY_MS = 200;

/** What the page scripts leave: first-render marks (since navigation start) and the crafting marks. */
interface CraftProbe {
  __render?: { at?: number };
  __craft?: { sent?: number; fetched?: number; answered?: number; patched?: number };
}

/** Stamps when `selector` first appears (ms since navigation start). */
const renderProbe = (selector: string) => `(() => {
  const mark = (window.__render = {});
  const check = () => { if (mark.at === undefined && document.querySelector(${JSON.stringify(selector)})) { mark.at = performance.now(); observer.disconnect(); } };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true });
})()`;

/** Stamps the message's submit, the POST's call and its answer's headers (the \`started\` frame follows them), and the first patch the canvas shows. */
const CRAFT_PROBE = `(() => {
  const marks = (window.__craft = {});
  const fetched = window.fetch;
  window.fetch = (input, init) => {
    const craft = init && init.method === 'POST' && String(input).endsWith('/agents/craft');
    if (craft) marks.fetched = performance.now();
    const answer = fetched(input, init);
    if (craft) answer.then(() => { marks.answered = performance.now(); }, () => undefined);
    return answer;
  };
  document.addEventListener('submit', (e) => { if (e.target.classList && e.target.classList.contains('craft-send')) marks.sent = performance.now(); }, true);
  new MutationObserver(() => {
    const canvas = document.querySelector('[data-testid="canvas"]');
    if (marks.sent !== undefined && marks.patched === undefined && canvas && canvas.dataset.patches === '1') marks.patched = performance.now();
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-patches'] });
})()`;

export interface CraftBenchResult {
  /** Message sent → first patch applied on the canvas, ms. */
  firstPatch: number[];
  /** Its hops in the page: submit → the POST called; → its headers read (the run created and woken); → the patch on the canvas. */
  pageHops: { toFetch: number[]; toHeaders: number[]; toPatch: number[] };
  /** The same message by the API (Node, bearer token): request sent → the `patch` event read, ms. */
  apiFirstPatch: number[];
  /** …of which request sent → headers read. */
  apiHeaders: number[];
  /** First render, navigation start → the page's content, ms. */
  craftRender: number[];
  fleetRender: number[];
}

/**
 * The crafting page (issue 32): gateway, event-log and one runner as
 * processes; each message is a crafting run (decision 0056) of the built-in
 * crafting agent, its model the scripted provider answering every call after
 * CRAFT_MODEL_LATENCY_MS. Fleet and craft pages are loaded alternately, each
 * in a new signed-in browser context; then `messages` first messages are sent,
 * each on a freshly loaded craft page.
 */
const FIRST_MESSAGE = {
  message: 'watch scorecards with more than 2 failures',
  draft: { name: 'new-agent', instructions: 'Describe what this agent does.', model: { provider: 'openai', name: 'gpt-4.1-mini' }, triggers: [{ kind: 'example.happened' }] },
};

/** `POST /agents/craft` → the first `patch` frame read from the answer (the rest is read to its end). */
async function apiFirstPatch(gatewayUrl: string, token: string): Promise<{ patch: number; headers: number }> {
  const t0 = performance.now();
  const response = await fetch(`${gatewayUrl}/v1/workspaces/craft/agents/craft`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(FIRST_MESSAGE) });
  const headers = performance.now() - t0;
  let text = '';
  let at: number | undefined;
  for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    if (at === undefined && text.includes('event: patch\n')) at = performance.now() - t0;
  }
  if (at === undefined) throw new Error(`no patch in the answer: ${text.slice(0, 300)}`);
  return { patch: at, headers };
}

export async function benchCrafting(browser: Browser, renders: number, messages: number): Promise<CraftBenchResult> {
  const platform = await startTestPlatform({
    env: {
      CRAFT_MODEL: JSON.stringify({ provider: 'scripted', name: 'crafting-script', params: { stepMs: CRAFT_MODEL_LATENCY_MS } }),
      CRAFT_SCRIPT: JSON.stringify(craftingScript()),
      RATE_LIMIT_PER_SECOND: '1000000',
    },
  });
  try {
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    const token = await platform.createWorkspace('craft');
    const context = async (probe: string) => {
      const made = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const session = await made.request.post(`${platform.gatewayUrl}/v1/session`, { data: { token } });
      if (!session.ok()) throw new Error(`sign-in answered ${session.status()}`);
      await made.addInitScript(probe);
      return made;
    };
    const render = async (path: string, selector: string) => {
      const made = await context(renderProbe(selector));
      const page = await made.newPage();
      await page.goto(`${platform.gatewayUrl}${path}`);
      await page.waitForFunction(() => (globalThis as unknown as CraftProbe).__render?.at !== undefined, undefined, { timeout: 30_000, polling: 50 });
      const at = (await page.evaluate(() => (globalThis as unknown as CraftProbe).__render?.at)) as number;
      await made.close();
      return at;
    };
    const result: CraftBenchResult = { firstPatch: [], pageHops: { toFetch: [], toHeaders: [], toPatch: [] }, apiFirstPatch: [], apiHeaders: [], craftRender: [], fleetRender: [] };
    for (let i = 0; i < renders; i++) {
      result.fleetRender.push(await render('/', 'table[data-testid="runs"]'));
      result.craftRender.push(await render('/agents/craft', '[data-testid="canvas"]'));
    }
    const made = await context(CRAFT_PROBE);
    const page = await made.newPage();
    for (let i = 0; i < messages; i++) {
      await page.goto(`${platform.gatewayUrl}/agents/craft`);
      await page.getByLabel('Message').fill('watch scorecards with more than 2 failures');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.waitForFunction(() => (globalThis as unknown as CraftProbe).__craft?.patched !== undefined, undefined, { timeout: 30_000, polling: 10 });
      const marks = (await page.evaluate(() => (globalThis as unknown as CraftProbe).__craft)) as { sent: number; fetched: number; answered: number; patched: number };
      result.firstPatch.push(marks.patched - marks.sent);
      result.pageHops.toFetch.push(marks.fetched - marks.sent);
      result.pageHops.toHeaders.push(marks.answered - marks.fetched);
      result.pageHops.toPatch.push(marks.patched - marks.answered);
      // The answer's remark (another model call) ends the stream before the next message.
      await page.getByText('Watching scorecard.completed with more than 2 failed cases.').waitFor({ timeout: 30_000 });
    }
    await made.close();
    for (let i = 0; i < messages; i++) {
      const api = await apiFirstPatch(platform.gatewayUrl, token);
      result.apiFirstPatch.push(api.patch);
      result.apiHeaders.push(api.headers);
    }
    return result;
  } finally {
    await platform.stop();
  }
}
