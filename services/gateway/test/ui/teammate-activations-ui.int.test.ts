import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'watchers';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 31, items 7 and 8: the event page says, per teammate, whether its watch
 * delivered the fact or why not; a run's page shows the typed refusal its
 * delegation got (headless Chromium; gateway, event-log, matcher and a runner
 * as processes).
 */
describe("issue 31: why didn't teammate X wake, on the event page", () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ matcher: true });
    // The runner reaches the platform's tools at this gateway.
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    const agent = await admin('POST', `${base}/agents`, {
      name: 'watcher',
      instructions: 'Read your mailbox.',
      model: { provider: 'scripted', name: 'demo' },
      script: [{ say: 'done' }],
      triggers: [{ kind: 'never.fires' }],
    });
    expect(agent.status).toBe(201);
    for (const [name, kind] of [['on-deploys', 'deploy.*'], ['on-builds', 'build.*'], ['retired', 'deploy.*']]) {
      expect((await admin('POST', `${base}/teammates`, { name, agentId: agent.body.id, team: 'ops', watch: [{ kind }] })).status).toBe(201);
    }
    expect((await admin('POST', `${base}/teammates/retired/stop`)).status).toBe(200);
    page = await signedInPage(browser, platform.gatewayUrl, token, { width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('lists each teammate with delivered, no match (its watch entry) or stopped', async () => {
    await platform.factsRecorded();
    const posted = await admin('POST', `${base}/events`, { kind: 'deploy.done', subject: { type: 'svc', id: 'api' } });
    expect(posted.status).toBe(202);
    const id = posted.body.id as string;
    await waitFor(
      async () => {
        const body = (await admin('GET', `${base}/events/${id}/activations`)).body;
        return body.teammates?.find((t: { name: string; outcome: string }) => t.name === 'on-deploys' && t.outcome === 'delivered');
      },
      { what: 'the delivery recorded', timeoutMs: 30_000 },
    );
    await page.goto(`${platform.gatewayUrl}/events/${id}`);
    const item = (name: string) => page.locator('[data-testid="teammate-activations"] li').filter({ hasText: name });
    await item('on-deploys').filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    expect(await item('on-deploys').getAttribute('data-outcome')).toBe('delivered');
    expect(await item('on-builds').getAttribute('data-outcome')).toBe('no_match');
    await item('on-builds').filter({ hasText: 'watch 0: kind build.* does not match' }).waitFor();
    await item('retired').filter({ hasText: 'not delivered: stopped' }).waitFor();
  });

  it("shows the typed refusal on the run that got one: a delegation past the agent's maxChildren is fan_out_cap", async () => {
    const agent = await admin('POST', `${base}/agents`, {
      name: 'fanner',
      instructions: 'Delegate.',
      model: { provider: 'scripted', name: 'demo' },
      script: [{ tool: 'platform.delegate_to_agent', arguments: { target: 'fanner', objective: 'split the work' } }, { say: 'done' }],
      triggers: [{ kind: 'never.fires' }],
      permissionMode: 'bypass',
      tools: { platform: ['delegate_to_agent'] },
      budget: { maxChildren: 0 },
    });
    expect(agent.status).toBe(201);
    const run = (await admin('POST', `${base}/agents/${agent.body.id}/runs`, { input: 'go' })).body;
    await waitFor(async () => ['completed', 'failed'].includes((await admin('GET', `${base}/runs/${run.id}`)).body.status) || undefined, { what: 'the run ended', timeoutMs: 60_000 });
    const transcript = (await admin('GET', `${base}/runs/${run.id}/transcript`)).body;
    const tool = transcript.entries.find((entry: { type: string }) => entry.type === 'tool');
    expect(JSON.stringify(tool)).toContain('fan_out_cap');
    await page.goto(`${platform.gatewayUrl}/runs/${run.id}`);
    await page.getByTestId('refusal').filter({ hasText: 'DELEGATION_REFUSED: fan_out_cap' }).first().waitFor({ timeout: 20_000 });
  });
});
