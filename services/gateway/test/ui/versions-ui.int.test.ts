import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'lab';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 32 §4 in the web UI (decision 0046), in headless Chromium against the
 * real gateway: the agent page's versions with their tags, a rollback (a pin
 * of an older version), unpin, a tag, the diff view with the API's changed
 * fields and JSON Patch, the fleet filtered by version, a bundle exported as a
 * file and imported into another workspace, and a viewer offered none of the writes.
 */
describe('issue 32: versions on the agent page (headless Chromium)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof apiClient>;
  let viewerToken: string;
  let agentId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform();
    const token = await platform.createWorkspace(WS);
    admin = apiClient(platform.gatewayUrl, token);
    viewerToken = (await admin('POST', `${base}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    const spec = (answer: string, instructions = 'You deploy.') => ({
      name: 'deployer',
      instructions,
      model: { provider: 'scripted', name: 'demo' },
      script: [{ say: answer }],
      triggers: [{ kind: 'deploy.requested' }],
    });
    agentId = (await admin('POST', `${base}/agents`, spec('v1'))).body.id;
    await admin('PUT', `${base}/agents/${agentId}`, spec('v2'));
    await admin('PUT', `${base}/agents/${agentId}`, spec('v3', 'You deploy carefully.'));
    // A manual run of the latest (no runner: it stays queued, with its version).
    await admin('POST', `${base}/agents/${agentId}/runs`, { input: 'before the rollback' });
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const version = (n: number) => page.getByTestId(`version-${n}`);

  it('rolls back to an older version and unpins, the page showing which version runs use', async () => {
    await page.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await version(3).getByTestId('in-force').filter({ hasText: 'runs use this' }).waitFor();
    await version(1).getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByTestId('agent-version').filter({ hasText: 'runs pinned to v1' }).waitFor();
    await version(1).getByTestId('in-force').filter({ hasText: 'pinned · runs use this' }).waitFor();
    expect(await version(3).getByTestId('in-force').count()).toBe(0);
    expect((await admin('GET', `${base}/agents/${agentId}`)).body.pinnedVersion).toBe(1);
    await screenshot(page, 'agent-versions-pinned');
    // A run started now runs the pinned version.
    expect((await admin('POST', `${base}/agents/${agentId}/runs`, { input: 'after the rollback' })).body.agentVersion).toBe(1);

    await version(1).getByRole('button', { name: 'Unpin (run the latest)' }).click();
    await version(3).getByTestId('in-force').filter({ hasText: 'runs use this' }).waitFor();
    expect(await page.getByTestId('agent-version').textContent()).toBe('v3');
    expect((await admin('GET', `${base}/agents/${agentId}`)).body.pinnedVersion).toBeNull();
  });

  it('tags a version and removes the tag', async () => {
    const form = page.getByRole('form', { name: 'tag a version' });
    await form.getByLabel('Tag').fill('stable');
    await form.getByLabel('on').selectOption('2');
    await form.getByRole('button', { name: 'Tag' }).click();
    await version(2).getByTestId('tag-stable').waitFor();
    expect((await admin('GET', `${base}/agents/${agentId}/tags`)).body.tags).toMatchObject([{ tag: 'stable', version: 2 }]);
    // A tag the API refuses shows its code; nothing changes.
    await form.getByLabel('Tag').fill('1bad');
    await form.getByRole('button', { name: 'Tag' }).click();
    await page.getByRole('alert').filter({ hasText: 'VALIDATION_FAILED' }).waitFor();
    await version(2).getByRole('button', { name: 'remove tag stable' }).click();
    await version(2).getByTestId('tag-stable').waitFor({ state: 'detached' });
  });

  it('shows the diff of two versions: the fields that changed and the JSON Patch', async () => {
    await page.locator('select[name="from"]').selectOption('1');
    await page.locator('select[name="to"]').selectOption('3');
    await page.getByTestId('diff-fields').filter({ hasText: 'Changed: instructions, script' }).waitFor();
    await page.getByText('JSON Patch (2 operations)').click();
    const patch = JSON.parse((await page.getByTestId('diff-patch').textContent())!);
    expect(patch).toEqual([
      { op: 'replace', path: '/instructions', value: 'You deploy carefully.' },
      { op: 'replace', path: '/script/0/say', value: 'v3' },
    ]);
    await page.getByTestId('version-diff').getByText('+   "instructions": "You deploy carefully.",').waitFor();
    await page.locator('select[name="to"]').selectOption('1');
    await page.getByTestId('diff-fields').filter({ hasText: 'No change.' }).waitFor();
    await screenshot(page, 'agent-versions-diff');
  });

  it('filters the fleet by version', async () => {
    await page.goto(`${platform.gatewayUrl}/`);
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    const rows = page.getByTestId('runs').locator('tbody tr');
    await rows.nth(1).waitFor();
    await page.getByLabel('Agent').selectOption({ label: 'deployer' });
    await page.getByLabel('Version').fill('1');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="runs"] tbody tr').length === 1);
    await page.getByLabel('Version').fill('3');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="runs"] tbody tr').length === 1);
    await page.getByLabel('Version').fill('2');
    await page.getByText('No runs match.').waitFor();
  });

  it('exports the agent as a bundle file and imports it into another workspace, refusing it twice', async () => {
    await page.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
    expect(download.suggestedFilename()).toBe('deployer.agents.json');
    const file = (await download.path())!;
    const bundle = JSON.parse(await readFile(file, 'utf8'));
    const exported = (await admin('GET', `${base}/agents/${agentId}/export`)).body;
    expect(bundle.agents[0].versions.map((v: { specHash: string }) => v.specHash)).toEqual(exported.agents[0].versions.map((v: { specHash: string }) => v.specHash));

    const otherToken = await platform.createWorkspace('lab2');
    const other = await signedInPage(browser, platform.gatewayUrl, otherToken);
    await other.goto(`${platform.gatewayUrl}/agents`);
    await other.getByLabel('Import a bundle').setInputFiles(file);
    await other.getByTestId('import-result').filter({ hasText: 'Imported deployer (disabled).' }).waitFor();
    await other.getByTestId('agents').getByRole('link', { name: 'deployer' }).waitFor();
    await other.getByLabel('Import a bundle').setInputFiles([]);
    await other.getByLabel('Import a bundle').setInputFiles(file);
    await other.getByRole('alert').filter({ hasText: 'AGENT_NAME_TAKEN' }).waitFor();
    await other.context().close();
  });

  it('offers a viewer none of the writes', async () => {
    const viewerPage = await signedInPage(browser, platform.gatewayUrl, viewerToken);
    await viewerPage.goto(`${platform.gatewayUrl}/agents/${agentId}`);
    await viewerPage.getByTestId('version-3').getByTestId('in-force').waitFor();
    expect(await viewerPage.getByRole('button', { name: /Roll back|Pin v|Unpin/ }).count()).toBe(0);
    expect(await viewerPage.getByRole('form', { name: 'tag a version' }).count()).toBe(0);
    // A viewer may export (it reads) but not import.
    await viewerPage.getByRole('button', { name: 'Export' }).waitFor();
    await viewerPage.getByTestId('diff-fields').waitFor();
    await viewerPage.context().close();
  });
});
