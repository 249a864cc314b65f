import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'watchers';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 31, item 7: the event page says, per teammate, whether its watch
 * delivered the fact or why not (headless Chromium; gateway, event-log and
 * matcher as processes).
 */
describe("issue 31: why didn't teammate X wake, on the event page", () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ matcher: true });
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
});
