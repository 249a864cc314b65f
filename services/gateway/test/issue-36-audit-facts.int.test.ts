import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { hashToken, newSecretsKey } from '@switchyard/core';
import { apiClient, startLocalMattermostServer, startTestPlatform, type LocalMattermostServer, type TestPlatform } from '@switchyard/testing';
import { auditFactsAfter, everyFactAsText, settledSeq, type StoredFact } from './audit-helpers';
import { scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;

const ws = '/v1/workspaces/acme';

/**
 * Issue 36 (audit trail), the facts: every governance change made through
 * the gateway — tokens, secrets, notification settings, Mattermost links,
 * the kill switch and approvals setting, collaborator rules — records
 * exactly one fact in its transaction, its actor the person who made it
 * (named), and no secret value anywhere in what is stored. Real gateway and
 * event-log processes, PostgreSQL and Redis, a local Mattermost server.
 */
describe('issue 36: each governance change records one audit fact', () => {
  const commandToken = `slash-${randomBytes(8).toString('hex')}`;
  let platform: TestPlatform;
  let mattermost: LocalMattermostServer;
  let pg: Client;
  let admin: Api;
  let acmeId: string;
  let adminUserId: string;
  const adminActor = () => ({ type: 'member', id: adminUserId, name: 'acme admin' });
  const mark = () => settledSeq(platform, pg, acmeId);
  /** The audit facts since `since`: exactly these kinds, in order. */
  const facts = async (since: number, ...kinds: string[]): Promise<StoredFact[]> => {
    const found = await auditFactsAfter(platform, pg, acmeId, since);
    expect(found.map((fact) => fact.kind)).toEqual(kinds);
    return found;
  };
  const slash = (userId: string, text: string) => mattermost.slashCommand(`${platform.gatewayUrl}/integrations/mattermost/commands/acme`, { token: commandToken, userId, text });
  const neverStored = async (...secrets: string[]) => {
    const text = await everyFactAsText(pg);
    for (const secret of secrets) expect(text).not.toContain(secret);
  };

  beforeAll(async () => {
    mattermost = await startLocalMattermostServer();
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey(), NOTIFICATIONS_ALLOW_PRIVATE: 'true' } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    acmeId = (await pg.query("SELECT id FROM workspaces WHERE slug = 'acme'")).rows[0].id;
    adminUserId = (await admin('GET', '/v1/whoami')).body.userId;
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await mattermost?.close();
  });

  it('a token created and revoked: one fact each with its listed info and owner, never its secret or hash; a second revoke or an unknown token records nothing', async () => {
    const since = await mark();
    const created = await admin('POST', `${ws}/tokens`, { name: 'ci', role: 'member', ttlSeconds: 3600 });
    expect(created.status).toBe(201);
    const listed = { id: created.body.id, name: 'ci', role: 'member', prefix: created.body.prefix, expiresAt: created.body.expiresAt, userId: adminUserId };
    const [made] = await facts(since, 'token.created');
    expect(made).toMatchObject({ subject: { type: 'token', id: created.body.id }, actor: adminActor(), payload: listed });
    expect(Object.keys(made!.payload).sort()).toEqual(['expiresAt', 'id', 'name', 'prefix', 'role', 'userId']);

    expect((await admin('DELETE', `${ws}/tokens/${created.body.id}`)).status).toBe(204);
    expect((await admin('DELETE', `${ws}/tokens/${created.body.id}`)).status).toBe(204);
    expect((await admin('DELETE', `${ws}/tokens/0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b`)).status).toBe(404);
    const [, revoked] = await facts(since, 'token.created', 'token.revoked');
    expect(revoked).toMatchObject({ subject: { type: 'token', id: created.body.id }, actor: adminActor(), payload: listed });
    await neverStored(created.body.token, hashToken(created.body.token), created.body.token.slice(10));
  });

  it('a secret set, replaced and deleted: its name only, never the value; deleting an unknown secret records nothing', async () => {
    const values = [`sk-${randomBytes(12).toString('hex')}`, `sk-${randomBytes(12).toString('hex')}`];
    const since = await mark();
    expect((await admin('PUT', `${ws}/secrets/OPENAI_KEY`, { value: values[0] })).status).toBe(201);
    expect((await admin('PUT', `${ws}/secrets/OPENAI_KEY`, { value: values[1] })).status).toBe(200);
    expect((await admin('DELETE', `${ws}/secrets/OPENAI_KEY`)).status).toBe(204);
    expect((await admin('DELETE', `${ws}/secrets/OPENAI_KEY`)).status).toBe(404);
    expect((await admin('PUT', `${ws}/secrets/BAD NAME`, { value: values[0] })).status).toBe(400);
    const found = await facts(since, 'secret.set', 'secret.set', 'secret.deleted');
    for (const fact of found) expect(fact).toMatchObject({ subject: { type: 'secret', id: 'OPENAI_KEY' }, actor: adminActor(), payload: { name: 'OPENAI_KEY' } });
    expect(found.map((fact) => Object.keys(fact.payload))).toEqual([['name'], ['name'], ['name']]);
    await neverStored(...values);
  });

  it('notification settings: each save says what it changed, the connection by its secrets’ names; a refused save records nothing', async () => {
    const botToken = mattermost.botToken;
    expect((await admin('PUT', `${ws}/secrets/mm-bot`, { value: botToken })).status).toBe(201);
    expect((await admin('PUT', `${ws}/secrets/mm-command`, { value: commandToken })).status).toBe(201);
    const channel = mattermost.newChannelId();
    const connection = { type: 'bot', serverUrl: mattermost.url, tokenSecret: 'mm-bot', commandTokenSecret: 'mm-command' };
    const settings = { connection, defaultChannel: channel, rules: [{ id: 'failed', kind: 'agent.run.failed' }] };
    const since = await mark();
    expect((await admin('PUT', `${ws}/settings/notifications`, settings)).status).toBe(200);
    expect((await admin('PUT', `${ws}/settings/notifications`, settings)).status).toBe(200);
    const rules = [{ id: 'failed', kind: 'agent.run.*' }, { id: 'audit', kind: 'token.*', template: 'token {{kind}}' }];
    expect((await admin('PUT', `${ws}/settings/notifications`, { ...settings, rules })).status).toBe(200);
    expect((await admin('PUT', `${ws}/settings/notifications`, { ...settings, connection: { ...connection, serverUrl: 'ftp://x' } })).status).toBe(400);
    const [first, same, ruled] = await facts(since, 'notifications.settings_changed', 'notifications.settings_changed', 'notifications.settings_changed');
    expect(first).toMatchObject({
      subject: { type: 'workspace', id: acmeId },
      actor: adminActor(),
      payload: { changed: ['connection', 'defaultChannel', 'rules'], connection, defaultChannel: channel, rules: { added: ['failed'], removed: expect.arrayContaining(['runs-failed']), changed: [], count: 1 } },
    });
    expect(same!.payload).toMatchObject({ changed: [], rules: { added: [], removed: [], changed: [], count: 1 } });
    expect(ruled!.payload).toMatchObject({ changed: ['rules'], rules: { added: ['audit'], removed: [], changed: ['failed'], count: 2 } });
    await neverStored(botToken, commandToken);
  });

  it('a Mattermost link made, replaced and removed by the member it is for; a used code or a second unlink records nothing', async () => {
    const linkCode = async () => (await admin('POST', `${ws}/integrations/mattermost/link-codes`)).body.code as string;
    const mmUser = 'mmadmin000000000000000000a';
    const since = await mark();
    const code = await linkCode();
    expect(((await slash(mmUser, `link ${code}`)).body as any).text).toContain('Linked');
    expect(((await slash('mmother000000000000000000a', `link ${code}`)).body as any).text).toContain('unknown, used or expired');
    expect(((await slash(mmUser, `link ${await linkCode()}`)).body as any).text).toContain('Linked');
    expect(((await slash(mmUser, 'unlink')).body as any).text).toContain('Unlinked');
    expect(((await slash(mmUser, 'unlink')).body as any).text).toContain('not linked');
    expect(((await slash(mmUser, 'status')).body as any).text).toContain('not linked');
    const [linked, relinked, unlinked] = await facts(since, 'mattermost.linked', 'mattermost.linked', 'mattermost.unlinked');
    const link = { mattermostUserId: mmUser, userId: adminUserId, role: 'admin' };
    expect(linked).toMatchObject({ subject: { type: 'mattermost_user', id: mmUser }, actor: adminActor(), payload: { ...link, previousUserId: null } });
    expect(relinked!.payload).toEqual({ ...link, previousUserId: adminUserId });
    expect(unlinked).toMatchObject({ subject: { type: 'mattermost_user', id: mmUser }, actor: adminActor(), payload: link });
    await neverStored(code, commandToken);
  });

  it('the kill switch and the approvals setting: workspace.settings_changed names what each save changed, from the API and from /switchyard pause', async () => {
    const since = await mark();
    expect((await admin('PUT', `${ws}/settings`, { agentsPaused: true })).status).toBe(200);
    expect((await admin('PUT', `${ws}/settings`, { agentsPaused: true })).status).toBe(200);
    expect((await admin('PUT', `${ws}/settings`, { approvals: 'deny', agentsPaused: false })).status).toBe(200);
    expect((await admin('PUT', `${ws}/settings`, { agentsPaused: 'yes' })).status).toBe(400);
    const code = (await admin('POST', `${ws}/integrations/mattermost/link-codes`)).body.code;
    await slash('mmadmin000000000000000000b', `link ${code}`);
    expect(((await slash('mmadmin000000000000000000b', 'pause')).body as any).text).toContain('paused');
    const found = await facts(since, ...Array(3).fill('workspace.settings_changed'), 'mattermost.linked', 'workspace.settings_changed');
    expect(found.filter((f) => f.kind === 'workspace.settings_changed').map((f) => f.payload)).toEqual([
      { agentsPaused: true, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 }, changed: ['agentsPaused'] },
      { agentsPaused: true, approvals: 'enabled', retention: { factsDays: 90, transcriptsDays: 30 }, changed: [] },
      { agentsPaused: false, approvals: 'deny', retention: { factsDays: 90, transcriptsDays: 30 }, changed: ['agentsPaused', 'approvals'] },
      { agentsPaused: true, approvals: 'deny', retention: { factsDays: 90, transcriptsDays: 30 }, changed: ['agentsPaused'] },
    ]);
    for (const fact of found) expect(fact.actor).toEqual(adminActor());
    await admin('PUT', `${ws}/settings`, { agentsPaused: false, approvals: 'enabled' });
  });

  it('a collaborator rule written, changed and removed: one agent.collaborator_changed each; an unchanged write records nothing', async () => {
    const [a, b] = await Promise.all(['alpha', 'beta'].map(async (name) => (await admin('POST', `${ws}/agents`, scriptedAgent(name))).body.id as string));
    const since = await mark();
    const rule = (enabled: boolean) => admin('PUT', `${ws}/agents/${a}/collaborators/${b}`, { enabled });
    expect((await rule(true)).status).toBe(200);
    expect((await rule(true)).status).toBe(200);
    expect((await rule(false)).status).toBe(200);
    expect((await admin('DELETE', `${ws}/agents/${a}/collaborators/${b}`)).status).toBe(204);
    const found = await facts(since, 'agent.collaborator_changed', 'agent.collaborator_changed', 'agent.collaborator_changed');
    expect(found.map((fact) => fact.payload.enabled)).toEqual([true, false, null]);
    for (const fact of found) expect(fact).toMatchObject({ subject: { type: 'agent', id: a }, actor: { type: 'member', id: adminUserId }, payload: { collaboratorId: b, collaboratorName: 'beta' } });
  });

  it('a change and its fact commit together: a fact refused leaves no change; a commit refused after both were written leaves neither', async () => {
    const value = `sk-${randomBytes(12).toString('hex')}`;
    expect((await admin('PUT', `${ws}/secrets/KEEP`, { value })).status).toBe(201);
    const since = await mark();
    // The outbox refuses these facts as they are written: the changes they announce do not happen.
    await pg.query(`
      CREATE FUNCTION test_refuse_fact() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the test refuses this fact'; END $$;
      CREATE TRIGGER test_refuse_fact BEFORE INSERT ON fact_outbox FOR EACH ROW
        WHEN (NEW.kind IN ('secret.set', 'token.created')) EXECUTE FUNCTION test_refuse_fact();
      CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER INSERT ON fact_outbox DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
        WHEN (NEW.kind IN ('secret.deleted', 'workspace.settings_changed', 'token.revoked')) EXECUTE FUNCTION test_refuse_fact();`);
    const token = (await admin('GET', `${ws}/tokens`)).body.tokens[0].id;
    let answers: number[];
    try {
      answers = [
        (await admin('PUT', `${ws}/secrets/ATOMIC`, { value })).status,
        (await admin('POST', `${ws}/tokens`, { name: 'atomic', role: 'viewer' })).status,
        // Written, then refused at commit: the delete, the pause and the revocation are undone with their facts.
        (await admin('DELETE', `${ws}/secrets/KEEP`)).status,
        (await admin('PUT', `${ws}/settings`, { agentsPaused: true })).status,
        (await admin('DELETE', `${ws}/tokens/${token}`)).status,
      ];
    } finally {
      await pg.query('DROP TRIGGER test_refuse_fact ON fact_outbox; DROP TRIGGER test_refuse_commit ON fact_outbox; DROP FUNCTION test_refuse_fact();');
    }
    expect(answers.every((status) => status >= 500)).toBe(true);
    expect((await admin('GET', `${ws}/secrets`)).body.secrets.map((s: { name: string }) => s.name)).toEqual(['KEEP', 'mm-bot', 'mm-command']);
    expect((await pg.query("SELECT count(*)::int AS n FROM api_tokens WHERE name = 'atomic'")).rows[0].n).toBe(0);
    expect((await admin('GET', `${ws}/settings`)).body.agentsPaused).toBe(false);
    expect((await admin('GET', '/v1/whoami')).status).toBe(200);
    await facts(since);
  });

  it('refuses an audit kind from a producer: only the platform records them', async () => {
    const since = await mark();
    const forged = await admin('POST', `${ws}/events`, { kind: 'token.revoked', subject: { type: 'token', id: 'x' } });
    expect([forged.status, forged.body.error.code, forged.body.error.details[0].path]).toEqual([400, 'VALIDATION_FAILED', ['kind']]);
    const batch = await admin('POST', `${ws}/events:batch`, { events: [{ kind: 'build.ok', subject: { type: 'b', id: '1' } }, { kind: 'secret.set', subject: { type: 'secret', id: 'X' } }] });
    expect([batch.status, batch.body.error.details[0].path]).toEqual([400, ['events', 1, 'kind']]);
    await facts(since);
  });
});
