import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'crew';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 17, item 8: the Team page in headless Chromium against the real
 * platform (gateway, event-log and a runner as processes): the roster with a
 * teammate's status live, a person's message sent from the page waking it and
 * listed as who messaged whom, the task board (claim, complete, the blocked
 * task unblocked live, cancel, a new task) and stop behind a confirmation.
 */
describe('issue 17: the Team page (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let agentId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform({ runners: 1 });
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    const agent = await admin('POST', `${base}/agents`, {
      name: 'scout',
      instructions: 'Read your mailbox.',
      task: 'Answer what your mailbox holds.',
      model: { provider: 'scripted', name: 'demo', params: { stepMs: 300 } },
      script: [{ say: 'reading' }, { say: 'done' }],
      triggers: [{ kind: 'never.fires' }],
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    expect((await admin('POST', `${base}/teammates`, { name: 'scout-1', agentId: agent.body.id, team: 'recon' })).status).toBe(201);
    page = await signedInPage(browser, platform.gatewayUrl, token, { width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const row = () => page.locator('[data-testid="roster"] tr[data-teammate="scout-1"]');
  const column = (status: string) => page.locator(`[data-testid="task-board"] [data-status="${status}"]`);

  it('shows the roster live; a message sent from the page wakes the teammate and is listed; stop asks first', async () => {
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    await row().getByTestId('teammate-status').filter({ hasText: 'idle' }).waitFor();
    await row().getByLabel('message to scout-1').fill('look at sc_9');
    await row().getByRole('button', { name: 'Send' }).click();
    await row().getByRole('status').filter({ hasText: 'sent; woke it' }).waitFor();
    // The message.sent fact (ids and sizes, never the content) arrives live, and so do the turn's ending facts.
    const message = page.locator('[data-testid="messages"] tbody tr').first();
    await message.filter({ hasText: 'scout-1' }).filter({ hasText: 'woke' }).waitFor({ timeout: 20_000 });
    await expectText(message.locator('td').nth(2), '12');
    await row().locator('td').nth(4).filter({ hasText: /^1$/ }).waitFor({ timeout: 30_000 });
    await row().getByTestId('teammate-status').filter({ hasText: 'idle' }).waitFor({ timeout: 30_000 });
    // Who messaged whom, never what: the content is not on the page.
    expect(await page.locator('[data-testid="messages"]').getByText('look at sc_9').count()).toBe(0);

    const stopped = async () => (await admin('GET', `${base}/teammates/scout-1`)).body.status;
    await row().getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('dialog', { name: 'confirm stop scout-1' }).getByRole('button', { name: 'Cancel' }).click();
    expect(await stopped()).toBe('idle');
    await screenshot(page, 'team');
    await row().getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('dialog', { name: 'confirm stop scout-1' }).getByRole('button', { name: 'Yes, stop' }).click();
    await row().getByTestId('teammate-status').filter({ hasText: 'stopped' }).waitFor();
    expect(await stopped()).toBe('stopped');
    await page.getByTestId('roster-count').filter({ hasText: '0 active teammates' }).waitFor();
  });

  it('drives the task board: claim and complete by clicks unblock the dependent task live; cancel; create', async () => {
    const first = (await admin('POST', `${base}/tasks`, { subject: 'collect the failures' })).body;
    const second = (await admin('POST', `${base}/tasks`, { subject: 'write the report', blockedBy: [first.id] })).body;
    await page.goto(`${platform.gatewayUrl}/team`);
    const card = (id: string) => page.locator(`[data-task-id="${id}"]`);
    await column('pending').locator(`[data-task-id="${second.id}"]`).getByText('blocked by 1').waitFor();
    expect(await card(second.id).getByRole('button', { name: 'Claim' }).isDisabled()).toBe(true);

    await card(first.id).getByRole('button', { name: 'Claim' }).click();
    await column('in_progress').locator(`[data-task-id="${first.id}"]`).getByText('held by crew admin').waitFor();
    await card(first.id).getByRole('button', { name: 'Complete' }).click();
    await column('completed').locator(`[data-task-id="${first.id}"]`).waitFor();
    // The ledger's task.* facts refresh the board: the dependent task is claimable now.
    await waitFor(async () => !(await card(second.id).getByRole('button', { name: 'Claim' }).isDisabled()), { timeoutMs: 20_000, what: 'the report task unblocked' });
    await card(second.id).getByRole('button', { name: 'Cancel' }).click();
    await column('cancelled').locator(`[data-task-id="${second.id}"]`).waitFor();

    await page.getByRole('form', { name: 'new task' }).getByRole('textbox').fill('triage sc_10');
    await page.getByRole('button', { name: 'Create' }).click();
    await column('pending').getByText('triage sc_10').waitFor();
    const stored = (await admin('GET', `${base}/tasks`)).body.tasks.map((task: { subject: string; status: string }) => [task.subject, task.status]);
    expect(stored).toEqual([
      ['collect the failures', 'completed'],
      ['write the report', 'cancelled'],
      ['triage sc_10', 'pending'],
    ]);
    await screenshot(page, 'team-tasks');
  });

  it('keeps a message that arrives live while the page still reads the earlier ones', async () => {
    for (const name of ['scout-2', 'scout-3']) expect((await admin('POST', `${base}/teammates`, { name, agentId })).status).toBe(201);
    // The page's read of the messages is answered before scout-2's message is sent, and handed to
    // the page only after that message has come in live: the read must not erase it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let answered!: () => void;
    const readAnswered = new Promise<void>((resolve) => (answered = resolve));
    const reads = /\/events\?kind=message\.sent/;
    await page.route(reads, async (route) => {
      const response = await route.fetch();
      answered();
      await held;
      await route.fulfill({ response });
    });
    const messages = page.locator('[data-testid="messages"] tbody tr');
    try {
      // Sent while the Team page is closed, and seen go by live on the Events page: only the Team
      // page's read has it, so its row there shows that the read was applied.
      await page.getByRole('link', { name: 'Events' }).click();
      await page.locator('[data-testid="events"] tbody tr').first().waitFor();
      expect((await admin('POST', `${base}/teammates/scout-3/messages`, { content: 'while away' })).status).toBe(202);
      const away = await waitFor(
        async () => (await admin('GET', `${base}/events?kind=message.sent&limit=1000`)).body.events.find((fact: { payload: { teammate?: string } }) => fact.payload.teammate === 'scout-3'),
        { what: "scout-3's message.sent recorded" },
      );
      await page.locator(`[data-testid="events"] tr[data-event-id="${away.id}"]`).waitFor({ timeout: 20_000 });
      await page.getByRole('link', { name: 'Team', exact: true }).click();
      await readAnswered;
      expect((await admin('POST', `${base}/teammates/scout-2/messages`, { content: 'and sc_11' })).status).toBe(202);
      await messages.filter({ hasText: 'scout-2' }).waitFor({ timeout: 20_000 });
      expect(await messages.filter({ hasText: 'scout-3' }).count()).toBe(0);
      release();
      await messages.filter({ hasText: 'scout-3' }).waitFor({ timeout: 20_000 });
      expect(await messages.filter({ hasText: 'scout-2' }).count()).toBe(1);
    } finally {
      release();
      await page.unroute(reads);
    }
  });

  it("marks a teammate's compaction in its turn's transcript; the raw entries it replaced stay listed (issue 31)", async () => {
    const mate = 'keeper-1';
    expect((await admin('POST', `${base}/teammates`, { name: mate, agentId, memory: { maxContextTokens: 1000, keepRecentTurns: 1 } })).status).toBe(201);
    // Three turns of ~600 tokens each: the third starts past the budget and summarizes the first.
    for (let n = 1; n <= 3; n++) {
      expect((await admin('POST', `${base}/teammates/${mate}/messages`, { content: `remember: fact ${n} ${'z'.repeat(2400)}` })).status).toBe(202);
      await waitFor(
        async () => {
          const got = (await admin('GET', `${base}/teammates/${mate}`)).body;
          return got.turns === n && got.status === 'idle' ? got : null;
        },
        { timeoutMs: 30_000, what: `turn ${n} of ${mate} ended` },
      );
    }
    const { lastTurn } = (await admin('GET', `${base}/teammates/${mate}`)).body;
    await page.goto(`${platform.gatewayUrl}/runs/${lastTurn.runId}`);
    const marked = page.locator('[data-testid="transcript"] li.e-compaction');
    await marked.getByTestId('compaction').filter({ hasText: '(1 turn) summarized' }).waitFor();
    await marked.getByText('remember: fact 1').waitFor();
    await screenshot(page, 'teammate-compaction');
    type Turn = { id: string; queuedAt: string; origin: { type: string; name?: string } };
    const turns = ((await admin('GET', `${base}/runs?limit=50`)).body.runs as Turn[]).filter((run) => run.origin.type === 'teammate' && run.origin.name === mate);
    const first = turns.sort((a, b) => a.queuedAt.localeCompare(b.queuedAt))[0]!;
    await page.goto(`${platform.gatewayUrl}/runs/${first.id}`);
    await page.getByTestId('transcript').getByText(/remember: fact 1 z+/).waitFor();
  });
});

async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  expect((await locator.textContent())?.trim()).toBe(text);
}
