import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { insertRun, scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;

/** A signed-in browser, as far as HTTP goes: the cookie it was given and the CSRF token it was told. */
interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: any;
}

/**
 * Issue 16: the web UI's sign-in. A pasted API token is exchanged for an
 * HttpOnly, SameSite=Strict cookie stored hashed; the cookie authenticates
 * like its token (roles, workspace), every mutating request with it needs the
 * CSRF token, and sign-out, expiry and the token's revocation each end it at once.
 */
describe('issue 16: UI sessions (POST/GET/DELETE /v1/session)', () => {
  let platform: TestPlatform;
  let admin: Api;
  let pg: Client;
  const ws = '/v1/workspaces/acme';

  beforeAll(async () => {
    // A long token cache: only a store lookup can explain a session refused at once.
    platform = await startTestPlatform({ env: { TOKEN_CACHE_MS: '60000', STREAM_AUTH_RECHECK_MS: '300' } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    await platform.createWorkspace('globex');
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${platform.gatewayUrl}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  const signIn = async (token: string, headers: Record<string, string> = {}): Promise<Session> => {
    const response = await post({ token }, headers);
    expect(response.status).toBe(201);
    const setCookie = response.headers.get('set-cookie')!;
    const body = (await response.json()) as any;
    return { cookie: setCookie.split(';')[0]!, csrf: body.csrfToken, setCookie, body };
  };

  const withCookie = (session: Session, method: string, path: string, body?: unknown, csrf = true) =>
    fetch(`${platform.gatewayUrl}${path}`, {
      method,
      headers: { cookie: session.cookie, ...(csrf ? { 'x-csrf-token': session.csrf } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const newToken = async (role: string, extra: Record<string, unknown> = {}) =>
    (await admin('POST', `${ws}/tokens`, { name: `ui-${randomUUID().slice(0, 8)}`, role, ...extra })).body as { id: string; token: string; expiresAt: string | null };

  it('refuses bad input with 400 or 415 and a stable code, and sets no cookie', async () => {
    for (const body of [{}, { token: 5 }, { token: '' }, { token: 'x'.repeat(201) }, { token: 'sy_x', extra: 1 }, '[1]']) {
      const response = await post(body);
      expect({ body, status: response.status, code: ((await response.json()) as any).error.code, cookie: response.headers.get('set-cookie') }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED', cookie: null });
    }
    const malformed = await post('{"token":');
    expect(malformed.status).toBe(400);
    const form = await fetch(`${platform.gatewayUrl}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=sy_abc' });
    expect(form.status).toBe(415);
  });

  it('refuses an unknown or revoked token with 401, and an agent token with 403', async () => {
    expect((await post({ token: 'sy_not-a-real-token' })).status).toBe(401);
    const revoked = await newToken('viewer');
    expect((await admin('DELETE', `${ws}/tokens/${revoked.id}`)).status).toBe(204);
    const refused = await post({ token: revoked.token });
    expect({ status: refused.status, code: ((await refused.json()) as any).error.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });

    const sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
    try {
      const workspaceId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id as string;
      const agentId = (await admin('POST', `${ws}/agents`, scriptedAgent('ui-agent'))).body.id as string;
      const runId = await insertRun(pg, { workspaceId, agentId, status: 'running', sessionId: randomUUID() });
      const { token } = await new SqlAgentTokens(sql).mint({ workspaceId, runId, agentId, depth: 0, ttlMs: 60_000 });
      const agent = await post({ token });
      expect({ status: agent.status, code: ((await agent.json()) as any).error.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    } finally {
      await sql.$disconnect();
    }
  });

  it('sets an HttpOnly, SameSite=Strict cookie (Secure behind HTTPS) and stores only its hash', async () => {
    const member = await newToken('member');
    const session = await signIn(member.token);
    expect(session.setCookie).toMatch(/^sy_session=sys_[\w-]+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    expect(session.body.whoami).toMatchObject({ tokenId: member.id, role: 'member', workspace: { slug: 'acme' } });
    const secret = session.cookie.split('=')[1]!;
    const rows = (await pg.query(`SELECT hash FROM ui_sessions WHERE token_id = $1`, [member.id])).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0].hash).not.toContain(secret);
    const secure = await signIn(member.token, { 'x-forwarded-proto': 'https' });
    expect(secure.setCookie).toMatch(/; Secure; SameSite=Strict$/);
  });

  it('authenticates like its token: reads without CSRF, writes only with it, never another workspace', async () => {
    const session = await signIn((await newToken('member')).token);
    const current = await withCookie(session, 'GET', '/v1/session', undefined, false);
    expect(current.status).toBe(200);
    expect(((await current.json()) as any).csrfToken).toBe(session.csrf);
    expect((await withCookie(session, 'GET', `${ws}/events`, undefined, false)).status).toBe(200);
    expect((await withCookie(session, 'GET', '/v1/whoami', undefined, false)).status).toBe(200);

    const before = await platform.factsRecorded();
    const fact = { kind: 'ui.test', subject: { type: 'x', id: '1' }, payload: {} };
    const noCsrf = await withCookie(session, 'POST', `${ws}/events`, fact, false);
    expect({ status: noCsrf.status, code: ((await noCsrf.json()) as any).error.code }).toEqual({ status: 403, code: 'CSRF_TOKEN_INVALID' });
    const wrongCsrf = await fetch(`${platform.gatewayUrl}${ws}/events`, { method: 'POST', headers: { cookie: session.cookie, 'x-csrf-token': 'x'.repeat(43), 'content-type': 'application/json' }, body: JSON.stringify(fact) });
    expect(wrongCsrf.status).toBe(403);
    expect(await platform.factsRecorded()).toBe(before);
    expect((await withCookie(session, 'POST', `${ws}/events`, fact)).status).toBe(202);

    // The role is the token's: a member manages no tokens.
    expect((await withCookie(session, 'GET', `${ws}/tokens`, undefined, false)).status).toBe(403);
    const other = await withCookie(session, 'GET', '/v1/workspaces/globex/events', undefined, false);
    expect({ status: other.status, code: ((await other.json()) as any).error.code }).toEqual({ status: 403, code: 'WORKSPACE_FORBIDDEN' });
  });

  it('ends at sign-out: the old cookie is refused at once, and sign-out itself needs the CSRF token', async () => {
    const session = await signIn((await newToken('viewer')).token);
    expect((await withCookie(session, 'DELETE', '/v1/session', undefined, false)).status).toBe(403);
    const out = await withCookie(session, 'DELETE', '/v1/session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^sy_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
    expect((await withCookie(session, 'GET', `${ws}/events`, undefined, false)).status).toBe(401);
    expect((await withCookie(session, 'GET', '/v1/session', undefined, false)).status).toBe(401);
  });

  it("ends when its token is revoked, and when it expires; it never outlives its token's expiry", async () => {
    const viewer = await newToken('viewer');
    const session = await signIn(viewer.token);
    expect((await withCookie(session, 'GET', `${ws}/events`, undefined, false)).status).toBe(200);
    expect((await admin('DELETE', `${ws}/tokens/${viewer.id}`)).status).toBe(204);
    expect((await withCookie(session, 'GET', `${ws}/events`, undefined, false)).status).toBe(401);

    const expiring = await newToken('viewer', { ttlSeconds: 120 });
    const short = await signIn(expiring.token);
    expect(Date.parse(short.body.expiresAt)).toBeLessThanOrEqual(Date.parse(expiring.expiresAt!));
    expect((await withCookie(short, 'GET', `${ws}/events`, undefined, false)).status).toBe(200);
    await pg.query(`UPDATE ui_sessions SET expires_at = now() - interval '1 second' WHERE token_id = $1`, [expiring.id]);
    expect((await withCookie(short, 'GET', `${ws}/events`, undefined, false)).status).toBe(401);
  });

  it('opens the SSE stream with the cookie, and closes it at sign-out', async () => {
    const session = await signIn((await newToken('viewer')).token);
    const controller = new AbortController();
    const response = await fetch(`${platform.gatewayUrl}${ws}/stream`, { headers: { cookie: session.cookie, accept: 'text/event-stream' }, signal: controller.signal });
    expect(response.status).toBe(200);
    let text = '';
    const ended = (async () => {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
    })();
    expect((await withCookie(session, 'DELETE', '/v1/session')).status).toBe(204);
    await Promise.race([ended, new Promise((_, reject) => setTimeout(() => reject(new Error('stream still open')), 10_000))]);
    expect(text).toContain('event: error');
    controller.abort();
  });
});
