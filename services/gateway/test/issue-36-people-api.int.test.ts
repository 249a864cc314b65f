import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { openStream, within } from './open-stream';
import { roleClients, type RoleClients } from './role-clients';

jest.setTimeout(120_000);

const WS = 'people';
const base = `/v1/workspaces/${WS}`;
type Api = ReturnType<typeof apiClient>;

/**
 * Issue 36, item 1 (decision 0042): a workspace's people through the API of
 * a real gateway process. An invitation is a one-time link (used once, 24 h,
 * its secret never stored); accepting it makes a member with their own token
 * and a browser session; roles change what their credentials may do at once;
 * removal ends their token, sessions and open stream; every change is an
 * audit fact naming the person. Bad input, viewers and other workspaces get
 * stable 4xx codes.
 */
describe('issue 36: people — members, invitations, roles, removal (real processes)', () => {
  let platform: TestPlatform;
  let roles: RoleClients;
  let admin: Api;
  let pg: Client;
  const anon = () => apiClient(platform.gatewayUrl);
  let deesInvitation: string;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { STREAM_AUTH_RECHECK_MS: '500' } });
    roles = await roleClients(platform, WS, 'elsewhere');
    admin = roles.admin;
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  const invite = async (role = 'member') => {
    const made = await admin('POST', `${base}/members/invitations`, { role });
    expect(made.status).toBe(201);
    return made.body as { id: string; url: string; role: string; expiresAt: string };
  };
  const secretOf = (url: string) => url.split('#')[1]!;
  const join = async (name: string, role = 'member') => {
    const invitation = await invite(role);
    const joined = await anon()('POST', '/v1/invitations/accept', { token: secretOf(invitation.url), name });
    expect(joined.status).toBe(201);
    return { invitation, joined: joined.body, cookie: joined.headers.get('set-cookie') ?? '', api: apiClient(platform.gatewayUrl, joined.body.token) };
  };

  it('invites by a one-time link whose secret is never stored; the invitee joins with a name, a token and a session', async () => {
    const invitation = await invite('member');
    expect(invitation.url).toMatch(new RegExp(`^${platform.gatewayUrl}/join#syl_[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(invitation.expiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const stored = (await pg.query('SELECT hash FROM access_links WHERE id = $1', [invitation.id])).rows[0].hash as string;
    expect(stored).not.toContain(secretOf(invitation.url).slice(4));

    const joined = await anon()('POST', '/v1/invitations/accept', { token: secretOf(invitation.url), name: '  Bea Example ' });
    expect(joined.status).toBe(201);
    expect(joined.headers.get('set-cookie')).toMatch(/sy_session=/);
    expect(joined.body).toMatchObject({ member: { name: 'Bea Example', role: 'member' }, whoami: { userName: 'Bea Example', role: 'member', workspace: { slug: WS } } });
    const bea = apiClient(platform.gatewayUrl, joined.body.token);
    expect((await bea('GET', '/v1/whoami')).body).toMatchObject({ userId: joined.body.member.userId, userName: 'Bea Example', role: 'member' });
    const { members } = (await roles.viewer('GET', `${base}/members`)).body;
    expect(members.map((m: any) => [m.name, m.role])).toContainEqual(['Bea Example', 'member']);

    // Used once: a replay is refused, and makes nobody.
    const again = await anon()('POST', '/v1/invitations/accept', { token: secretOf(invitation.url), name: 'Mallory' });
    expect([again.status, again.body.error.code]).toEqual([409, 'INVITATION_USED']);
    expect((await admin('GET', `${base}/members`)).body.members.some((m: any) => m.name === 'Mallory')).toBe(false);
  });

  it('refuses an expired link (410), an unknown one (404) and malformed input (400), each with its code', async () => {
    const invitation = await invite('viewer');
    await pg.query(`UPDATE access_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [invitation.id]);
    const expired = await anon()('POST', '/v1/invitations/accept', { token: secretOf(invitation.url), name: 'Late' });
    expect([expired.status, expired.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);
    const unknown = await anon()('POST', '/v1/invitations/accept', { token: `syl_${'A'.repeat(43)}`, name: 'Nobody' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'INVITATION_NOT_FOUND']);
    const signIn = await anon()('POST', '/v1/sign-in-links/redeem', { token: `syl_${'B'.repeat(43)}` });
    expect([signIn.status, signIn.body.error.code]).toEqual([404, 'INVITATION_NOT_FOUND']);
    const fresh = secretOf((await invite()).url);
    for (const [path, body] of [
      ['/v1/invitations/accept', { token: fresh, name: '' }],
      ['/v1/invitations/accept', { token: fresh, name: 'x'.repeat(101) }],
      ['/v1/invitations/accept', { token: fresh, name: 'tab\there' }],
      ['/v1/invitations/accept', { token: 'sy_notalink', name: 'Eve' }],
      ['/v1/invitations/accept', { token: fresh, name: 'Eve', role: 'admin' }],
      ['/v1/invitations/accept', { token: fresh }],
      ['/v1/sign-in-links/redeem', { token: 42 }],
      ['/v1/sign-in-links/redeem', {}],
    ] as const) {
      const answer = await anon()('POST', path, body);
      expect({ path, body, status: answer.status, code: answer.body.error.code }).toEqual({ path, body, status: 400, code: 'VALIDATION_FAILED' });
    }
    for (const [method, path, body] of [
      ['POST', `${base}/members/invitations`, { role: 'owner' }],
      ['POST', `${base}/members/invitations`, { role: 'member', ttl: 5 }],
      ['PATCH', `${base}/members/not-a-uuid`, { role: 'viewer' }],
      ['PATCH', `${base}/members/${(await admin('GET', '/v1/whoami')).body.userId}`, { role: 'boss' }],
      ['DELETE', `${base}/members/123`, undefined],
    ] as const) {
      const answer = await admin(method, path, body);
      expect({ method, path, status: answer.status, code: answer.body.error.code }).toEqual({ method, path, status: 400, code: 'VALIDATION_FAILED' });
    }
    // Single sign-on is not configured on this gateway: it says so, and offers none.
    expect((await anon()('GET', '/v1/sign-in-methods')).body).toEqual({ sso: null });
    for (const path of ['/v1/sso/login', '/v1/sso/callback?state=x&code=y']) {
      const answer = await anon()('GET', path);
      expect({ path, status: answer.status, code: answer.body.error.code }).toEqual({ path, status: 404, code: 'SSO_NOT_CONFIGURED' });
    }
    const missing = await admin('PATCH', `${base}/members/00000000-0000-4000-8000-000000000000`, { role: 'viewer' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'MEMBER_NOT_FOUND']);
  });

  it('keeps the admin routes to admins, and every route to its own workspace', async () => {
    const { joined } = await join('Cy');
    const target = `${base}/members/${joined.member.userId}`;
    for (const [who, api] of [['viewer', roles.viewer], ['member', roles.member]] as const) {
      for (const [method, path, body] of [
        ['POST', `${base}/members/invitations`, { role: 'admin' }],
        ['PATCH', target, { role: 'admin' }],
        ['DELETE', target, undefined],
      ] as const) {
        const answer = await api(method, path, body);
        expect({ who, method, status: answer.status, code: answer.body.error.code }).toEqual({ who, method, status: 403, code: 'FORBIDDEN' });
      }
    }
    for (const [method, path, body] of [
      ['GET', `${base}/members`, undefined],
      ['POST', `${base}/members/invitations`, { role: 'admin' }],
      ['PATCH', target, { role: 'admin' }],
      ['DELETE', target, undefined],
    ] as const) {
      const answer = await roles.otherAdmin(method, path, body);
      expect({ method, status: answer.status, code: answer.body.error.code }).toEqual({ method, status: 403, code: 'WORKSPACE_FORBIDDEN' });
    }
    // Another workspace's member through one's own path is not found there.
    const foreign = await roles.otherAdmin('PATCH', `/v1/workspaces/elsewhere/members/${joined.member.userId}`, { role: 'viewer' });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'MEMBER_NOT_FOUND']);
    expect((await admin('GET', `${base}/members`)).body.members.find((m: any) => m.userId === joined.member.userId).role).toBe('member');
  });

  it('changes what a person may do at once with their role, and never leaves the workspace without an admin', async () => {
    const { joined, api: dee } = await join('Dee', 'admin');
    // An invitation Dee makes, to lapse when she is removed.
    deesInvitation = (await dee('POST', `${base}/members/invitations`, { role: 'viewer' })).body.url;
    const target = `${base}/members/${joined.member.userId}`;
    expect((await dee('GET', `${base}/tokens`)).status).toBe(200);
    const demoted = await admin('PATCH', target, { role: 'viewer' });
    expect(demoted.body).toMatchObject({ userId: joined.member.userId, name: 'Dee', role: 'viewer' });
    // Her admin token acts as a viewer now (this replica forgot its cache entry).
    expect((await dee('GET', `${base}/tokens`)).status).toBe(403);
    expect((await dee('POST', `${base}/events`, { kind: 'x.y', subject: { type: 't', id: '1' } })).status).toBe(403);
    expect((await dee('GET', '/v1/whoami')).body.role).toBe('viewer');
    // Removed, her unused invitation lapses with her.
    expect((await admin('PATCH', target, { role: 'admin' })).status).toBe(200);
    expect((await admin('DELETE', target)).status).toBe(204);
    const lapsed = await anon()('POST', '/v1/invitations/accept', { token: secretOf(deesInvitation), name: 'Late Guest' });
    expect([lapsed.status, lapsed.body.error.code]).toEqual([404, 'INVITATION_NOT_FOUND']);
    // The first admin cannot demote or remove themselves while they are the only admin.
    const me = (await admin('GET', '/v1/whoami')).body.userId as string;
    const last = await admin('PATCH', `${base}/members/${me}`, { role: 'member' });
    expect([last.status, last.body.error.code]).toEqual([409, 'LAST_ADMIN']);
    const leave = await admin('DELETE', `${base}/members/${me}`);
    expect([leave.status, leave.body.error.code]).toEqual([409, 'LAST_ADMIN']);
  });

  it('removes a person: their token and session stop, their open stream closes within 5 s, and the trail names who did what', async () => {
    const { joined, cookie, api: eve } = await join('Eve Removed');
    const stream = await openStream(`${platform.gatewayUrl}${base}/stream`, { authorization: `Bearer ${joined.token}` });
    const sessionCookie = cookie.split(';')[0]!;
    const browserStream = await openStream(`${platform.gatewayUrl}${base}/stream`, { cookie: sessionCookie });
    expect([stream.status, browserStream.status]).toEqual([200, 200]);
    expect(await within(stream.ended, 1_000)).toBe(false);

    const removedAt = Date.now();
    expect((await admin('DELETE', `${base}/members/${joined.member.userId}`)).status).toBe(204);
    expect(await within(Promise.all([stream.ended, browserStream.ended]), 5_000)).toBe(true);
    expect(Date.now() - removedAt).toBeLessThan(5_000);
    expect((await eve('GET', `${base}/events`)).status).toBe(401);
    expect((await fetch(`${platform.gatewayUrl}/v1/session`, { headers: { cookie: sessionCookie } })).status).toBe(401);
    expect((await admin('GET', `${base}/members`)).body.members.some((m: any) => m.userId === joined.member.userId)).toBe(false);
    const again = await admin('DELETE', `${base}/members/${joined.member.userId}`);
    expect([again.status, again.body.error.code]).toEqual([404, 'MEMBER_NOT_FOUND']);

    const adminName = (await admin('GET', '/v1/whoami')).body.userName as string;
    const trail = await waitFor(
      async () => {
        const { entries } = (await admin('GET', `${base}/audit?kind=member.*`)).body;
        return entries.some((e: any) => e.kind === 'member.removed' && e.subject.id === joined.member.userId) ? entries : undefined;
      },
      { what: 'member.removed in the audit trail' },
    );
    const of = (kind: string) => trail.find((e: any) => e.kind === kind && (e.subject.id === joined.member.userId || e.payload.invitationId === joined.member.invitationId));
    expect(of('member.removed')).toMatchObject({ actor: { type: 'member', name: adminName }, payload: { userId: joined.member.userId, name: 'Eve Removed', role: 'member' } });
    expect(of('member.joined')).toMatchObject({ actor: { type: 'member', id: joined.member.userId, name: 'Eve Removed' } });
    expect(trail.find((e: any) => e.kind === 'member.role_changed' && e.payload.role === 'viewer')).toMatchObject({ actor: { name: adminName }, payload: { name: 'Dee', role: 'viewer', previousRole: 'admin' } });
    expect(trail.find((e: any) => e.kind === 'member.invited')).toMatchObject({ actor: { name: adminName }, subject: { type: 'invitation' } });
  });
});
