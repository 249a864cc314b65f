import { Client } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { OPS_FACT_KINDS } from '@switchyard/contracts';
import { newSecretsKey, opsFact } from '@switchyard/core';
import { recordFacts, SqlPool } from '@switchyard/db';
import {
  apiClient,
  spawnService,
  startLocalMattermostServer,
  startTestMcpServer,
  startTestPlatform,
  waitFor,
  type LocalMattermostServer,
  type ServiceProcess,
  type TestMcpHttpServer,
  type TestPlatform,
} from '@switchyard/testing';
import { deployerSpec } from './scripted-spec';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'ops';
const base = `/v1/workspaces/${WS}`;
/** How long the run waits parked before it is approved: its whole duration is at least this. */
const PARKED_MS = 3_000;

/** Seconds in a duration as the UI writes it (`850 ms`, `3.4 s`, `2 min 5 s`). */
function seconds(text: string): number {
  const minutes = /(\d+) min (\d+) s/.exec(text);
  if (minutes) return Number(minutes[1]) * 60 + Number(minutes[2]);
  const secs = /([\d.]+) s/.exec(text);
  if (secs) return Number(secs[1]);
  const ms = /(\d+) ms/.exec(text);
  if (ms) return Number(ms[1]) / 1000;
  throw new Error(`not a duration: ${text}`);
}

/**
 * Issue 36 §8, the UI defects, in headless Chromium against the real
 * platform (gateway, event-log, matcher, runner, notifier as processes), the
 * MCP test server and the local Mattermost stand-in: the approvals inbox and
 * the Mattermost post name the agent; a tool's arguments show as JSON, not
 * as an escaped JSON string; a run resumed after its approval shows its whole
 * duration, not the time since the resume; the events list is newest first
 * and pages back; a platform fact's actor reads "Switchyard".
 */
describe('issue 36: UI defects (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let mcp: TestMcpHttpServer;
  let mattermost: LocalMattermostServer;
  let notifier: ServiceProcess;
  let browser: Browser;
  let page: Page;
  let pg: Client;
  let admin: ReturnType<typeof apiClient>;
  const channelId = 'approvals00000000000000000';
  let approval: { id: string; runId: string; requestedAt: string };

  beforeAll(async () => {
    browser = await launchBrowser();
    mcp = await startTestMcpServer();
    mattermost = await startLocalMattermostServer();
    platform = await startTestPlatform({ matcher: true, runners: 1, env: { RUNNER_MCP_ALLOW_PRIVATE: 'true', SECRETS_KEY: newSecretsKey(), NOTIFICATIONS_ALLOW_PRIVATE: 'true' } });
    notifier = await spawnService('notifier', { ...platform.env, NOTIFIER_HEALTH_PORT: '0', NOTIFIER_CONSUMER: `n-${Date.now()}`, NOTIFIER_BACKOFF_MS: '200' }, { readyPattern: /notifier started/ });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    expect((await admin('PUT', `${base}/secrets/mm-bot`, { value: mattermost.botToken })).status).toBe(201);
    const saved = await admin('PUT', `${base}/settings/notifications`, {
      connection: { type: 'bot', serverUrl: mattermost.url, tokenSecret: 'mm-bot' },
      defaultChannel: channelId,
      rules: [{ id: 'asks', kind: 'approval.requested' }],
    });
    expect(saved.status).toBe(200);
    const created = await admin('POST', `${base}/agents`, deployerSpec(mcp.url));
    expect(created.status).toBe(201);
    page = await signedInPage(browser, platform.gatewayUrl, token);
    expect((await admin('POST', `${base}/events`, { kind: 'deploy.requested', subject: { type: 'release', id: '1.2.3' } })).status).toBe(202);
    approval = await waitFor(async () => (await admin('GET', `${base}/approvals?status=pending`)).body.approvals[0], { timeoutMs: 60_000, what: 'the parked approval' });
  });
  afterAll(async () => {
    await browser?.close();
    await pg?.end();
    await notifier?.stop();
    await platform?.stop();
    await mcp?.close();
    await mattermost?.close();
  });

  it('names the agent in the approvals inbox and in the Mattermost post', async () => {
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    const card = page.locator(`[data-testid="pending-list"] [data-approval-id="${approval.id}"]`);
    await card.getByTestId('approval-agent').filter({ hasText: 'deployer' }).waitFor();
    await screenshot(page, 'approvals-agent');
    const post = await waitFor(async () => mattermost.postsIn(channelId).find((p) => p.message.includes(approval.id)), { what: 'the approval post', timeoutMs: 30_000 });
    expect(JSON.stringify(post.props)).toContain('Agent **deployer**');
  });

  it("shows a resumed run's whole duration and its tool arguments as JSON", async () => {
    // Parked a known while before the approval: its resume restarts the run's startedAt.
    await waitFor(async () => (Date.now() - Date.parse(approval.requestedAt) >= PARKED_MS ? true : undefined), { what: 'the run parked a while', timeoutMs: 10_000 });
    expect((await admin('POST', `${base}/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
    const run = await waitFor(async () => {
      const answer = (await admin('GET', `${base}/runs/${approval.runId}`)).body;
      return answer.status === 'completed' ? answer : undefined;
    }, { what: 'the run completed', timeoutMs: 60_000 });
    // The defect as it was: the API's startedAt is the resume's, so startedAt → endedAt misses the parked time.
    expect(Date.parse(run.endedAt) - Date.parse(run.startedAt)).toBeLessThan(PARKED_MS);

    await page.goto(`${platform.gatewayUrl}/runs/${approval.runId}`);
    await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor();
    await page.getByTestId('transcript').waitFor();
    const duration = await page.getByTestId('run-duration').textContent();
    expect(seconds(duration ?? '')).toBeGreaterThanOrEqual(PARKED_MS / 1000);

    const shown = await page.getByTestId('call-arguments').first().textContent();
    expect(JSON.parse(shown ?? '')).toEqual({ text: 'deploy 1.2.3' });
    expect(shown).not.toContain('\\"');
    await screenshot(page, 'run-resumed');
  });

  it('lists events newest first, pages back to the oldest, and names the platform as Switchyard', async () => {
    const workspace = { id: (await pg.query('SELECT id FROM workspaces WHERE slug = $1', [WS])).rows[0].id as string, slug: WS };
    const sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1, applicationName: 'test' });
    const backlog = opsFact(workspace, OPS_FACT_KINDS.queueBacklogged, 'lane:agent:x', {
      summary: 'lane backlogged',
      windowMs: 60_000,
      lane: 'agent:x',
      agentId: approval.runId,
      depth: 50,
      threshold: 20,
      oldestQueuedAt: new Date().toISOString(),
    } as never, new Date());
    await recordFacts(sql, [{ fact: backlog, correlationId: 'test' }]);
    await sql.$disconnect();
    // More than a page of facts, so the oldest are on a page of their own.
    const batch = Array.from({ length: 120 }, (_, i) => ({ kind: 'build.finished', subject: { type: 'build', id: `b${i}` }, payload: { i } }));
    expect((await admin('POST', `${base}/events:batch`, { events: batch })).status).toBe(202);
    const all = await waitFor(async () => {
      const { events } = (await admin('GET', `${base}/events?limit=1000`)).body as { events: Array<{ id: string; seq: number; kind: string }> };
      return events.some((event) => event.kind === 'build.finished' && event.seq > 0) && events.filter((event) => event.kind === 'build.finished').length === 120 ? events : undefined;
    }, { what: 'the facts stored', timeoutMs: 30_000 });

    await page.getByRole('link', { name: 'Events', exact: true }).click();
    const rows = page.locator('[data-testid="events"] tbody tr');
    await rows.first().waitFor();
    const firstSeqs = (await rows.locator('td:first-child').allTextContents()).map(Number);
    expect(firstSeqs[0]).toBe(all.at(-1)!.seq);
    expect(firstSeqs).toEqual([...firstSeqs].sort((a, b) => b - a));
    expect(await rows.count()).toBe(100);

    await page.getByRole('button', { name: 'Older facts' }).click();
    await page.locator(`[data-testid="events"] tr[data-event-id="${all[0]!.id}"]`).waitFor();
    const seqs = (await rows.locator('td:first-child').allTextContents()).map(Number);
    expect(seqs).toEqual(all.map((event) => event.seq).reverse());
    expect(await page.getByRole('button', { name: 'Older facts' }).count()).toBe(0);

    const platformRow = page.locator(`[data-testid="events"] tr[data-event-id="${backlog.id}"]`);
    expect(await platformRow.getByTestId('event-actor').textContent()).toBe('Switchyard');
    expect(await page.getByText('system itchyard').count()).toBe(0);
    await screenshot(page, 'events-newest-first');
  });
});
