import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage, tabTo } from './browser';

jest.setTimeout(400_000);

const WS = 'desk';
const base = `/v1/workspaces/${WS}`;
/** A message of ~2,000 characters: three turns of them pass the smallest memory budget (1,000 tokens at four characters a token). */
const message = (n: number) => `remember: M${n} is the release note number ${n}.\n${'padding '.repeat(240)}`;

const fitsWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth);

/**
 * Issue 31 §8 in headless Chromium against the real platform (gateway,
 * event-log and a runner as processes, the scripted model): a teammate spawned
 * from the Team page by keyboard with a team and its memory; the teams list
 * and a team's page with its members and status; the teammate's page with
 * its team and its whole conversation across turns — each turn headed, the
 * compaction marked with the range it replaced and the raw entries still
 * readable under it; 1,280×800 and 390×844; a viewer offered no spawn, message
 * or stop (the API refusing them 403).
 */
describe('issue 31 §8: teams and a teammate’s conversation (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let viewerToken: string;
  let agentId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ runners: 1 });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    viewerToken = (await admin('POST', `${base}/tokens`, { name: 'reader', role: 'viewer' })).body.token;
    const agent = await admin('POST', `${base}/agents`, {
      name: 'keeper',
      instructions: 'Keep the notes.',
      task: 'Answer what your mailbox holds.',
      model: { provider: 'scripted', name: 'demo' },
      script: [{ say: 'noted' }],
      triggers: [{ kind: 'never.fires' }],
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('spawns a teammate with a team and its memory from the form, by keyboard; a bad budget shows the API’s refusal', async () => {
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    const summary = page.getByText('Spawn a teammate');
    await tabTo(page, summary);
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'spawn a teammate' });
    await form.getByLabel('Teammate name').fill('keeper-1');
    await form.getByLabel('Runs agent').selectOption({ label: 'keeper' });
    await form.getByLabel('Team (optional)').fill('notes');
    await form.getByLabel('Compact past (tokens, optional)').fill('500');
    await form.getByLabel('Keep recent turns (optional)').fill('1');
    await form.getByRole('button', { name: 'Spawn' }).focus();
    await page.keyboard.press('Enter');
    await form.getByRole('alert').filter({ hasText: 'VALIDATION_FAILED' }).waitFor();
    expect((await admin('GET', `${base}/teammates`)).body.teammates).toEqual([]);

    await form.getByLabel('Compact past (tokens, optional)').fill('1000');
    await form.getByRole('button', { name: 'Spawn' }).focus();
    await page.keyboard.press('Enter');
    await form.getByRole('status').filter({ hasText: 'Spawned keeper-1.' }).waitFor();
    expect((await admin('GET', `${base}/teammates/keeper-1`)).body).toMatchObject({ agentId, team: 'notes', memory: { maxContextTokens: 1000, keepRecentTurns: 1 } });
    expect((await admin('POST', `${base}/teammates`, { name: 'keeper-2', agentId, team: 'notes' })).status).toBe(201);
  });

  it('lists the teams, and a team’s page shows its members and status, reached by keyboard', async () => {
    await page.goto(`${platform.gatewayUrl}/teams`);
    const row = page.locator('[data-testid="teams"] tr[data-team="notes"]');
    await row.getByTestId('team-status').filter({ hasText: 'idle' }).waitFor();
    expect(await row.locator('td').nth(2).textContent()).toBe('2');
    const link = row.getByRole('link', { name: 'notes' });
    await tabTo(page, link);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Team notes' }).waitFor();
    await page.getByTestId('team-counts').filter({ hasText: '2 members · 2 live · 0 working' }).waitFor();
    for (const name of ['keeper-1', 'keeper-2']) await page.locator(`[data-testid="roster"] tr[data-teammate="${name}"]`).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'team-detail');
    const mate = page.locator('[data-testid="roster"] tr[data-teammate="keeper-1"]').getByRole('link', { name: 'keeper-1' });
    await tabTo(page, mate);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Teammate keeper-1' }).waitFor();
    await page.getByTestId('membership').filter({ hasText: 'notes' }).waitFor();
    await page.getByTestId('memory').filter({ hasText: '1,000 tokens, keeping the 1 latest turns' }).waitFor();
  });

  it('shows the whole conversation across turns, the compaction marked with its range and the raw entries under it', async () => {
    for (let n = 1; n <= 4; n++) {
      const posted = await admin('POST', `${base}/teammates/keeper-1/messages`, { content: message(n) });
      expect(posted.status).toBe(202);
      await waitFor(
        async () => {
          const mate = (await admin('GET', `${base}/teammates/keeper-1`)).body;
          return mate.turns === n && mate.status === 'idle' && mate.lastTurn?.status === 'completed';
        },
        { what: `turn ${n} ended`, timeoutMs: 60_000 },
      );
    }
    // Every raw entry stays in the session's transcript: the four messages as sent.
    const entries = (await admin('GET', `${base}/teammates/keeper-1/transcript?limit=500`)).body.entries as Array<{ seq: number; type: string; content: Record<string, any> }>;
    for (let n = 1; n <= 4; n++) expect(entries.some((entry) => entry.type === 'user' && String(entry.content.text).includes(`M${n} is`))).toBe(true);
    const compaction = entries.find((entry) => entry.type === 'compaction');
    expect(compaction).toBeDefined();
    // Paged like a run's: `next` is the `after` of the next page, null at the end; the pages are the whole.
    const paged: number[] = [];
    for (let after = 0; ; ) {
      const page = (await admin('GET', `${base}/teammates/keeper-1/transcript?after=${after}&limit=5`)).body as { entries: Array<{ seq: number }>; next: number | null };
      paged.push(...page.entries.map((entry) => entry.seq));
      if (page.next === null) break;
      after = page.next;
    }
    expect(paged).toEqual(entries.map((entry) => entry.seq));

    await page.goto(`${platform.gatewayUrl}/teammates/keeper-1`);
    const conversation = page.getByTestId('conversation');
    await conversation.getByTestId('turn-head').nth(3).waitFor();
    await conversation.getByTestId('compaction').filter({ hasText: `entries ${compaction!.content.fromSeq}–${compaction!.content.throughSeq}` }).waitFor();
    const replaced = conversation.getByTestId('replaced').first();
    const fold = replaced.locator('summary');
    await fold.filter({ hasText: `summarized by the compaction at #${compaction!.seq}` }).waitFor();
    // Folded until asked for, then readable as recorded, by keyboard.
    expect(await replaced.getByText('M1 is the release note').isVisible()).toBe(false);
    await tabTo(page, fold, 120);
    await page.keyboard.press('Enter');
    await replaced.getByText('M1 is the release note').first().waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'teammate-conversation');
    await page.setViewportSize({ width: 390, height: 844 });
    await conversation.getByTestId('compaction').first().waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.goto(`${platform.gatewayUrl}/teams/notes`);
    await page.locator('[data-testid="roster"] tr[data-teammate="keeper-1"]').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'team-detail-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('offers a viewer no spawn, message or stop, and the API refuses them 403; another workspace’s teammate is not found', async () => {
    const viewer = await signedInPage(browser, platform.gatewayUrl, viewerToken);
    await viewer.goto(`${platform.gatewayUrl}/teams/notes`);
    await viewer.locator('[data-testid="roster"] tr[data-teammate="keeper-1"]').waitFor();
    expect(await viewer.getByRole('button', { name: /^(Stop|Send)$/ }).count()).toBe(0);
    await viewer.goto(`${platform.gatewayUrl}/teammates/keeper-1`);
    await viewer.getByTestId('conversation').getByTestId('compaction').first().waitFor();
    expect(await viewer.getByRole('button', { name: /^(Stop|Send)$/ }).count()).toBe(0);
    await viewer.goto(`${platform.gatewayUrl}/team`);
    await viewer.locator('[data-testid="roster"] tr[data-teammate="keeper-1"]').waitFor();
    expect(await viewer.getByText('Spawn a teammate').count()).toBe(0);
    const asViewer = apiClient(platform.gatewayUrl, viewerToken);
    expect((await asViewer('GET', `${base}/teammates/keeper-1/transcript`)).status).toBe(200);
    expect((await asViewer('POST', `${base}/teammates`, { name: 'x-1', agentId })).status).toBe(403);
    expect((await asViewer('POST', `${base}/teammates/keeper-1/stop`)).status).toBe(403);
    await viewer.context().close();

    expect((await admin('GET', `${base}/teammates/keeper-1/transcript?limit=0`)).body.error.code).toBe('VALIDATION_FAILED');
    const other = apiClient(platform.gatewayUrl, await platform.createWorkspace('elsewhere'));
    const foreign = await other('GET', `/v1/workspaces/elsewhere/teammates/keeper-1/transcript`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'TEAMMATE_NOT_FOUND']);
  });

  it('stops a teammate from its page; the team shows it', async () => {
    await page.goto(`${platform.gatewayUrl}/teammates/keeper-2`);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('dialog', { name: 'confirm stop keeper-2' }).getByRole('button', { name: 'Yes, stop' }).click();
    await page.getByTestId('teammate-status').filter({ hasText: 'stopped' }).waitFor();
    await page.goto(`${platform.gatewayUrl}/teams/notes`);
    await page.getByTestId('team-counts').filter({ hasText: '2 members · 1 live' }).waitFor();
  });
});
