import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { runAdmin } from './lib/operator-processes';

/*
 * Issue 36: a lost admin token could not be recovered (`create-workspace` said the workspace
 * existed; the admin CLI had no token command). `npm run admin -- create-token | list-tokens |
 * revoke-token | list-members` run here as real processes against a real database, and what
 * they make is tried on a real gateway.
 */
jest.setTimeout(120_000);

const WS = 'acme';

describe('npm run admin recovers access (real processes)', () => {
  let platform: TestPlatform;
  let pg: Client;
  let env: Record<string, string>;
  let adminId: string;
  let viewerId: string;
  const admin = (...args: string[]) => runAdmin(args, env);
  const whoami = (token: string) => apiClient(platform.gatewayUrl, token)('GET', '/v1/whoami');
  const lastLine = (text: string) => text.trim().split('\n').at(-1)!;
  const tokenCount = async () => Number((await pg.query('SELECT count(*) FROM api_tokens')).rows[0].count);

  beforeAll(async () => {
    platform = await startTestPlatform();
    env = { DATABASE_URL: platform.db.url, REDIS_URL: platform.redis.url, REDIS_PREFIX: platform.redis.prefix };
    await platform.createWorkspace(WS);
    await platform.createWorkspace('other');
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    adminId = (await pg.query("SELECT m.user_id FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE w.slug = $1", [WS])).rows[0].user_id;
    // A second person, a viewer, joined later.
    viewerId = randomUUID();
    await pg.query("INSERT INTO users (id, name) VALUES ($1, 'Vera Viewer')", [viewerId]);
    await pg.query("INSERT INTO memberships (workspace_id, user_id, role, created_at) SELECT id, $1, 'viewer', now() + interval '1 second' FROM workspaces WHERE slug = $2", [viewerId, WS]);
  });

  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it('list-members names each member: user id, name, role, oldest first', async () => {
    const [table, json] = await Promise.all([admin('list-members', WS), admin('list-members', WS, '--json')]);
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^user id\s+name\s+role\s+member since$/);
    expect(rows.slice(1).map((row) => row.split(/\s{2,}/).slice(0, 3))).toEqual([
      [adminId, 'acme admin', 'admin'],
      [viewerId, 'Vera Viewer', 'viewer'],
    ]);
    expect(json.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      { userId: adminId, name: 'acme admin', role: 'admin', joinedAt: expect.any(String) },
      { userId: viewerId, name: 'Vera Viewer', role: 'viewer', joinedAt: expect.any(String) },
    ]);
  });

  it("create-token prints a working token once, acting as the workspace's first admin by default", async () => {
    const created = await admin('create-token', WS, '--role', 'admin', '--name', 'recovered');
    expect(created.code).toBe(0);
    const token = lastLine(created.stdout);
    expect(token).toMatch(/^sy_[A-Za-z0-9_-]{43}$/);
    expect(created.stdout).toContain(`token "recovered" (admin) of acme admin (${adminId}) in acme`);
    expect(await whoami(token)).toMatchObject({ status: 200, body: { role: 'admin', userId: adminId, workspace: { slug: WS } } });
    // And it administers: it lists the workspace's tokens through the API.
    expect((await apiClient(platform.gatewayUrl, token)('GET', `/v1/workspaces/${WS}/tokens`)).status).toBe(200);

    const listed = await admin('list-tokens', WS, '--json');
    const tokens = listed.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(tokens).toContainEqual(expect.objectContaining({ name: 'recovered', role: 'admin', prefix: token.slice(0, 9), userId: adminId, userName: 'acme admin', revokedAt: null }));
    expect(listed.stdout).not.toContain(token);
    const table = await admin('list-tokens', WS);
    expect(table.stdout).toMatch(/^id\s+prefix\s+role\s+name\s+user\s+created\s+last used\s+state/);
    expect(table.stdout).toContain(token.slice(0, 9));
    expect(table.stdout).not.toContain(token);
  });

  it("create-token --user makes a member's token, never above the member's role", async () => {
    const before = await tokenCount();
    const [own, above] = await Promise.all([admin('create-token', WS, '--role', 'viewer', '--user', viewerId), admin('create-token', WS, '--role', 'member', '--user', viewerId)]);
    expect(own.code).toBe(0);
    expect(await whoami(lastLine(own.stdout))).toMatchObject({ status: 200, body: { role: 'viewer', userId: viewerId } });
    expect(above).toMatchObject({ code: 1, stdout: '' });
    expect(above.stderr).toContain(`Vera Viewer (${viewerId}) is a viewer of acme: a token of theirs can be viewer at most`);
    expect(await tokenCount()).toBe(before + 1);
  });

  it.each([
    [['create-token', 'nope', '--role', 'admin'], 'no workspace named nope; there are: acme, other'],
    [['create-token', WS, '--role', 'owner'], 'unknown role "owner": viewer, member or admin'],
    [['create-token', WS, '--role', 'ADMIN'], 'unknown role "ADMIN": viewer, member or admin'],
    [['create-token', WS], '--role is required (viewer, member or admin)'],
    [['create-token', WS, '--role'], "Option '--role <value>' argument missing"],
    [['create-token', WS, '--role', 'admin', '--user', '42'], '--user "42" is not a user id (list-members shows them)'],
    [['create-token', WS, '--role', 'admin', '--user', '00000000-0000-4000-8000-000000000000'], 'user 00000000-0000-4000-8000-000000000000 is not a member of workspace acme'],
    [['create-token', WS, '--role', 'admin', '--name', ''], '--name is empty'],
    [['create-token', WS, '--role', 'admin', '--name', 'x'.repeat(101)], '--name is longer than 100 characters'],
    [['create-token', WS, '--role', 'admin', '--rol', 'x'], 'unknown option --rol'],
    [['create-token', WS, 'extra', '--role', 'admin'], 'unexpected argument "extra"'],
    [['create-token', '../etc', '--role', 'admin'], 'slug is lowercase letters, digits and hyphens'],
    [['create-token', 'ACME', '--role', 'admin'], 'slug is lowercase letters, digits and hyphens'],
    [['list-tokens'], 'a workspace name is required'],
    [['list-members', "acme' OR '1'='1"], 'slug is lowercase letters, digits and hyphens'],
    [['revoke-token', WS, 'sy_'], '"sy_" is neither a token id nor a token prefix'],
    [['revoke-token', WS, "sy_' OR 1=1 --"], 'is neither a token id nor a token prefix'],
    [['revoke-token', WS, '00000000-0000-4000-8000-000000000000'], 'no token 00000000-0000-4000-8000-000000000000 in this workspace'],
    [['frobnicate'], 'unknown command frobnicate'],
  ])('%j is refused with a clear message and exit code 1, changing nothing', async (args, message) => {
    const before = await tokenCount();
    const result = await admin(...args);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await tokenCount()).toBe(before);
  });

  it('keeps a token name as typed, whatever it holds', async () => {
    const name = `'; DROP TABLE users; -- «ünïcode» 🔑`;
    const created = await admin('create-token', WS, '--role', 'viewer', '--name', name);
    expect(created.code).toBe(0);
    const tokens = (await admin('list-tokens', WS, '--json')).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(tokens.filter((token) => token.name === name)).toHaveLength(1);
    expect((await admin('list-members', WS)).code).toBe(0);
  });

  it('revoke-token by prefix: the gateway refuses the token; again by id: already revoked', async () => {
    const token = lastLine((await admin('create-token', WS, '--role', 'member', '--name', 'leaked')).stdout);
    expect((await whoami(token)).status).toBe(200);
    const revoked = await admin('revoke-token', WS, token.slice(0, 9));
    expect(revoked.code).toBe(0);
    const id = (await pg.query('SELECT id FROM api_tokens WHERE prefix = $1', [token.slice(0, 9)])).rows[0].id;
    expect(revoked.stdout).toContain(`token ${id} revoked`);
    // The gateway caches a token for TOKEN_CACHE_MS (5 s by default).
    await waitFor(async () => (await whoami(token)).status === 401, { timeoutMs: 15_000, what: 'the revoked token refused' });
    const again = await admin('revoke-token', WS, id);
    expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining(`token ${id} was already revoked`) });
    // The audit trail: one token.created and one token.revoked (not two), naming the operator, never the secret.
    const factsOf = async () =>
      (await pg.query("SELECT kind, actor, payload FROM platform_events WHERE subject_type = 'token' AND subject_id = $1 ORDER BY seq", [id])).rows;
    await waitFor(async () => (await factsOf()).length === 2, { timeoutMs: 15_000, what: "the token's two audit facts" });
    const facts = await factsOf();
    expect(facts.map((fact) => fact.kind)).toEqual(['token.created', 'token.revoked']);
    for (const fact of facts) {
      expect(fact.actor).toEqual({ type: 'system', id: 'admin-cli', name: 'operator (npm run admin)' });
      expect(fact.payload).toEqual({ id, name: 'leaked', role: 'member', prefix: token.slice(0, 9), expiresAt: null, userId: adminId });
      expect(JSON.stringify(fact)).not.toContain(token);
    }
  });

  it('revoke-token by the whole token, never printing it back; another workspace’s token is not found there', async () => {
    const token = lastLine((await admin('create-token', 'other', '--role', 'admin', '--name', 'elsewhere')).stdout);
    const foreign = await admin('revoke-token', WS, token);
    expect(foreign).toMatchObject({ code: 1, stderr: expect.stringContaining(`no token ${token.slice(0, 9)}… in this workspace`) });
    expect(foreign.stderr).not.toContain(token);
    expect((await whoami(token)).status).toBe(200);
    const own = await admin('revoke-token', 'other', token);
    expect(own.code).toBe(0);
    expect(own.stdout + own.stderr).not.toContain(token);
    await waitFor(async () => (await whoami(token)).status === 401, { timeoutMs: 15_000, what: 'the revoked token refused' });
  });

  it('refuses a prefix that more than one token has, naming their ids', async () => {
    const workspaceId = (await pg.query('SELECT id FROM workspaces WHERE slug = $1', [WS])).rows[0].id;
    const ids = [randomUUID(), randomUUID()];
    for (const [index, id] of ids.entries()) {
      await pg.query("INSERT INTO api_tokens (id, workspace_id, user_id, name, role, prefix, hash) VALUES ($1, $2, $3, 'twin', 'viewer', $4, $5)", [id, workspaceId, adminId, `sy_twin0${index}`, `hash-${id}`]);
    }
    const ambiguous = await admin('revoke-token', WS, 'sy_twin');
    expect(ambiguous).toMatchObject({ code: 1, stderr: expect.stringContaining(`sy_twin is the prefix of 2 tokens: name one by id (${ids.join(', ')})`) });
    expect((await pg.query('SELECT count(*) FROM api_tokens WHERE revoked_at IS NOT NULL AND id = ANY($1)', [ids])).rows[0].count).toBe('0');
    expect((await admin('revoke-token', WS, 'sy_twin01')).code).toBe(0);
    expect((await pg.query('SELECT id FROM api_tokens WHERE revoked_at IS NOT NULL AND id = ANY($1)', [ids])).rows).toEqual([{ id: ids[1] }]);
  });

  it('sign-in-link prints a one-time link that signs the first admin (or --user) in to the web UI, once', async () => {
    const made = await admin('sign-in-link', WS);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`sign-in link for acme admin (admin of ${WS}), once, until `);
    const url = lastLine(made.stdout);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign-in#syl_[A-Za-z0-9_-]{43}$/);
    const redeem = (token: string) => apiClient(platform.gatewayUrl)('POST', '/v1/sign-in-links/redeem', { token });
    const signedIn = await redeem(url.split('#')[1]!);
    expect(signedIn.status).toBe(201);
    expect(signedIn.body).toMatchObject({ whoami: { userId: adminId, userName: 'acme admin', role: 'admin' }, member: { userId: adminId } });
    expect((await whoami(signedIn.body.token)).status).toBe(200);
    expect((await redeem(url.split('#')[1]!)).body.error.code).toBe('INVITATION_USED');

    const forVera = await runAdmin(['sign-in-link', WS, '--user', viewerId], { ...env, PUBLIC_URL: 'https://switchyard.example.com/' });
    expect(lastLine(forVera.stdout)).toMatch(/^https:\/\/switchyard\.example\.com\/sign-in#syl_/);
    const vera = await redeem(lastLine(forVera.stdout).split('#')[1]!);
    expect(vera.body).toMatchObject({ whoami: { userName: 'Vera Viewer', role: 'viewer' } });
    expect(await admin('sign-in-link', WS, '--user', 'nope')).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a user id') });
    expect(await admin('sign-in-link', 'missing')).toMatchObject({ code: 1, stderr: expect.stringContaining('no workspace named missing') });
  });

  it('create-token without --user in a workspace with no admin says so', async () => {
    await pg.query("UPDATE memberships SET role = 'member' FROM workspaces w WHERE w.id = memberships.workspace_id AND w.slug = 'other'");
    const result = await admin('create-token', 'other', '--role', 'member');
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('workspace other has no admin: name a member with --user') });
  });

  it('help lists every command with its arguments', async () => {
    const help = await admin('help');
    expect(help.code).toBe(0);
    for (const command of ['create-workspace NAME', 'list-members <workspace>', 'create-token <workspace> --role', 'list-tokens <workspace>', 'revoke-token <workspace> <TOKEN_ID|PREFIX>', 'sign-in-link <workspace>', 'dead-letters list']) {
      expect(help.stdout).toContain(command);
    }
  });
});
