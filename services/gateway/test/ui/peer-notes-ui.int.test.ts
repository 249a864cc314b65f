import type { Browser, Page } from 'playwright-core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { defective, envelope } from '../agent-messages/envelopes';
import { launchBrowser, screenshot, signedInPage } from './browser';

jest.setTimeout(300_000);

const WS = 'notes-ui';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 34 §5, the UI: the Peer notes page in headless Chromium against the
 * real gateway process shows thread activity and delivery health (counts,
 * gaps, quarantine reasons) and no note's text until a person asks for one
 * message; then that one message's text only.
 */
describe('issue 34: the Peer notes page (headless Chromium, real processes)', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  const marker = `UI-MARKER-${Date.now()}`;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await startTestPlatform();
    const token = await platform.createWorkspace(WS);
    const api = apiClient(platform.gatewayUrl, token);
    const first = envelope({ thread: 'build-42', senderSeq: 1, content: `${marker} first` });
    for (const note of [first, envelope({ thread: 'build-42', senderSeq: 4, content: `${marker} second` }), envelope({ thread: 'release', senderSeq: 5, content: `${marker} third` })]) {
      expect((await api('POST', `${base}/agent-messages`, note)).body.disposition).toBe('observed');
    }
    expect((await api('POST', `${base}/agent-messages`, defective('expired', marker, first))).body.reason).toBe('expired');
    page = await signedInPage(browser, platform.gatewayUrl, token);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('shows threads and delivery health without content, and one message’s text only when asked', async () => {
    await page.getByRole('link', { name: 'Peer notes', exact: true }).click();
    await page.getByRole('heading', { name: 'Peer notes' }).waitFor();
    await page.getByTestId('note-totals').filter({ hasText: '3 observed · 0 duplicate deliveries · 1 gaps · 0 regressions · 1 quarantined' }).waitFor();
    await page.getByTestId('note-threads').getByRole('cell', { name: 'build-42' }).waitFor();
    await page.getByTestId('note-quarantine').getByText('expired: 1').waitFor();
    await page.getByTestId('note-recent').locator('tbody tr').nth(2).waitFor();
    expect(await page.content()).not.toContain(marker);

    // The newest row is the `release` note: asking shows its text, and only its.
    await page.getByTestId('note-recent').locator('tbody tr').first().getByRole('button', { name: 'Show content' }).click();
    await page.getByTestId('note-content').filter({ hasText: `${marker} third` }).waitFor();
    const html = await page.content();
    expect(html.split(marker).length - 1).toBe(1);
    await screenshot(page, 'peer-notes');
  });
});
