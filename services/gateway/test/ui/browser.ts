import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../../../..');

/** Debian's Chromium (`.ci/run` installs it when missing); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why this exists: the web UI is tested in a real headless Chromium driven by
 * playwright-core (the browsers Playwright downloads are not reachable here),
 * against the real gateway serving the real build (jest's global setup builds
 * it, see buildUi). This launches Chromium with the flags these machines
 * need; Playwright gives each launch a fresh profile.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Where the tests' screenshots go: `docs/ui/` when UI_SCREENSHOTS=1 (`npm run
 * ui:screenshots`, to refresh the committed ones), else a folder under /tmp so
 * an ordinary run changes nothing in the repository.
 */
export const SCREENSHOT_DIR = process.env.UI_SCREENSHOTS === '1' ? path.join(ROOT, 'docs/ui') : path.join('/tmp', `switchyard-ui-shots-${process.pid}`);

/** Takes a full-page screenshot named `name.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** A new page at 1,280 px (or `viewport`) signed in to the gateway at `baseUrl` with `token`, on the fleet page. */
export async function signedInPage(browser: Browser, baseUrl: string, token: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Fleet' }).waitFor();
  return page;
}

/**
 * Presses Tab until `target` has the focus (at most `presses` times), so a
 * test proves a control is reachable by keyboard; fails naming what had the
 * focus instead.
 */
export async function tabTo(page: Page, target: Locator, presses = 60): Promise<void> {
  const handle = await target.elementHandle();
  if (!handle) throw new Error('tabTo: no such element');
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    if (await handle.evaluate((el) => el === (el.ownerDocument as any).activeElement)) return;
  }
  const focused = await page.evaluate(() => (globalThis as any).document.activeElement?.outerHTML?.slice(0, 200));
  throw new Error(`tabTo: not reached in ${presses} presses of Tab; the focus is on ${focused}`);
}
