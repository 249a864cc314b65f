import type { Browser, Page } from 'playwright-core';
import { apiClient, freePort, startLocalOidcProvider, startTestPlatform, waitFor, type LocalOidcProvider, type TestPlatform } from '@switchyard/testing';
import { launchBrowser, screenshot } from './browser';

jest.setTimeout(300_000);

const WS = 'sso';
const base = `/v1/workspaces/${WS}`;

/**
 * Issue 36, item 1 (decision 0042): single sign-on with OpenID Connect, in headless Chromium,
 * against a real OpenID Connect provider (the `oidc-provider` package, as its own process) and
 * the real gateway: a person's groups at the provider map to their role in the workspace
 * (the highest wins); a person whose groups map to none is refused; a callback not begun in
 * the browser, replayed, or malformed is a stable 4xx.
 */
describe('issue 36: single sign-on maps provider groups to roles (headless Chromium, real provider)', () => {
  let provider: LocalOidcProvider;
  let platform: TestPlatform;
  let browser: Browser;
  let admin: ReturnType<typeof apiClient>;
  let gatewayUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    provider = await startLocalOidcProvider({
      redirectUri: `${gatewayUrl}/v1/sso/callback`,
      accounts: {
        dev: { name: 'Dev Person', groups: ['staff', 'developers'] },
        ada: { name: 'Ada Admin', groups: ['platform-admins'] },
        guest: { name: 'Guest Person', groups: ['visitors'] },
      },
    });
    platform = await startTestPlatform({
      env: {
        PORT: String(port),
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_WORKSPACE: WS,
        OIDC_ROLE_MAP: 'platform-admins=admin, developers=member, staff=viewer',
        OIDC_ALLOW_HTTP: 'true',
      },
    });
    expect(platform.gatewayUrl).toBe(gatewayUrl);
    admin = apiClient(gatewayUrl, await platform.createWorkspace(WS));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await provider?.close();
  });

  /** Signs in as `login` through the provider's form, in a fresh browser context; the page where it lands. */
  const signInAs = async (login: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${gatewayUrl}/`);
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    return page;
  };

  it('signs a person in through the provider, with the highest role their groups map to, by name', async () => {
    const page = await signInAs('dev');
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    await page.getByTestId('user-name').filter({ hasText: 'Dev Person' }).waitFor();
    await screenshot(page, 'sso-signed-in');
    const session: any = await page.evaluate(async () => (await fetch('/v1/session')).json());
    expect(session.whoami).toMatchObject({ userName: 'Dev Person', role: 'member', workspace: { slug: WS } });
    const members = (await admin('GET', `${base}/members`)).body.members;
    expect(members.map((m: any) => [m.name, m.role])).toContainEqual(['Dev Person', 'member']);

    const ada = await signInAs('ada');
    await ada.getByRole('link', { name: 'Audit' }).waitFor();
    expect(((await ada.evaluate(async () => (await fetch('/v1/session')).json())) as any).whoami).toMatchObject({ userName: 'Ada Admin', role: 'admin' });

    // The same person again: the same member, not a second one.
    const again = await signInAs('dev');
    await again.getByRole('heading', { name: 'Fleet' }).waitFor();
    const after = (await admin('GET', `${base}/members`)).body.members;
    expect(after.filter((m: any) => m.name === 'Dev Person')).toHaveLength(1);
    const joined = await waitFor(
      async () => {
        const { entries } = (await admin('GET', `${base}/audit?kind=member.joined`)).body;
        return entries.length >= 2 ? entries : undefined;
      },
      { what: 'two member.joined facts' },
    );
    expect(joined.map((e: any) => e.actor.name).sort()).toEqual(['Ada Admin', 'Dev Person']);
  });

  it('refuses a person whose groups map to no role, and makes nobody', async () => {
    const page = await signInAs('guest');
    await page.getByText('SSO_NO_ROLE').waitFor();
    expect((await admin('GET', `${base}/members`)).body.members.some((m: any) => m.name === 'Guest Person')).toBe(false);
  });

  it('answers a callback not begun in this browser, replayed or malformed with a stable 4xx', async () => {
    const anon = apiClient(gatewayUrl);
    const noState = await anon('GET', '/v1/sso/callback?code=abc');
    expect([noState.status, noState.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const foreign = await anon('GET', '/v1/sso/callback?code=abc&state=not-this-browsers');
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'SSO_STATE_INVALID']);
    // A real login begun by a client, its callback replayed with the right cookie after use.
    const login = await fetch(`${gatewayUrl}/v1/sso/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toMatch(new RegExp(`^${provider.issuer}/auth\\?`));
    const state = new URL(login.headers.get('location')!).searchParams.get('state')!;
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const first = await fetch(`${gatewayUrl}/v1/sso/callback?state=${state}&error=access_denied`, { headers: { cookie }, redirect: 'manual' });
    expect([first.status, ((await first.json()) as any).error.code]).toEqual([401, 'SSO_REFUSED']);
    const replay = await fetch(`${gatewayUrl}/v1/sso/callback?state=${state}&code=abc`, { headers: { cookie }, redirect: 'manual' });
    expect([replay.status, ((await replay.json()) as any).error.code]).toEqual([400, 'SSO_STATE_INVALID']);
    expect((await anon('GET', '/v1/sign-in-methods')).body).toEqual({ sso: { loginUrl: '/v1/sso/login', workspace: WS } });
  });
});
