import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ListSecretsResponseSchema, MAX_SECRET_BYTES, SecretInfoSchema } from '@switchyard/contracts';
import { newSecretsKey, SecretBox } from '@switchyard/core';
import { createPrismaClient, readWorkspaceSecret, readWorkspaceSecrets, type PrismaClient } from '@switchyard/db';
import { apiClient, spawnService, startTestPlatform, type ApiResponse, type ServiceProcess, type TestPlatform } from '@switchyard/testing';
import { roleClients } from './role-clients';

type Api = ReturnType<typeof apiClient>;

/**
 * Workspace secrets over real HTTP against the real gateway process (with
 * SECRETS_KEY set and every log level on), read back through the runner's
 * reader in `@switchyard/db`. Every response is kept, so the last test can
 * check that no value ever left the gateway, in a body or in its log.
 */
describe('workspace secrets API', () => {
  const key = newSecretsKey();
  const box = new SecretBox({ key });
  const ws = '/v1/workspaces/acme';
  // Distinctive values, so a leak anywhere is found by a plain substring search.
  const values: string[] = [];
  const newValue = (label: string) => {
    const value = `sk-${label}-${randomBytes(12).toString('hex')}`;
    values.push(value);
    return value;
  };
  const responses: Array<ApiResponse<unknown>> = [];
  const recorded = (api: Api): Api => async (...args) => {
    const response = await api(...args);
    responses.push(response);
    return response;
  };
  let platform: TestPlatform;
  let admin: Api;
  let member: Api;
  let viewer: Api;
  let otherAdmin: Api;
  let pg: Client;
  let prisma: PrismaClient;
  let acmeId: string;
  let otherId: string;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { SECRETS_KEY: key, LOG_LEVEL: 'trace' } });
    ({ admin, member, viewer, otherAdmin } = await roleClients(platform, 'acme', 'other', recorded));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const ids = (await pg.query(`SELECT slug, id FROM workspaces`)).rows;
    acmeId = ids.find((r) => r.slug === 'acme').id;
    otherId = ids.find((r) => r.slug === 'other').id;
    prisma = createPrismaClient({ databaseUrl: platform.db.url, poolMax: 2 });
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pg.end();
    await platform.stop();
  });

  const row = async (workspaceId: string, name: string) =>
    (await pg.query('SELECT key_id, iv, ciphertext, tag FROM workspace_secrets WHERE workspace_id = $1 AND name = $2', [workspaceId, name])).rows[0];

  it('creates (201) and replaces (200) a secret, answering its name and dates only', async () => {
    const first = newValue('create');
    const created = await admin('PUT', `${ws}/secrets/OPENAI_KEY`, { value: first });
    expect(created.status).toBe(201);
    expect(SecretInfoSchema.parse(created.body)).toEqual(created.body);
    expect(created.body).toEqual({ name: 'OPENAI_KEY', createdAt: expect.any(String), updatedAt: created.body.createdAt });

    const second = newValue('replace');
    const replaced = await admin('PUT', `${ws}/secrets/OPENAI_KEY`, { value: second });
    expect(replaced.status).toBe(200);
    expect(replaced.body.createdAt).toBe(created.body.createdAt);
    expect(Date.parse(replaced.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
    expect(await readWorkspaceSecret(prisma, box, acmeId, 'OPENAI_KEY')).toBe(second);
  });

  it('stores ciphertext only, sealed with the configured key, that the runner reader opens', async () => {
    const value = newValue('stored');
    await admin('PUT', `${ws}/secrets/github.token`, { value });
    const stored = await row(acmeId, 'github.token');
    expect(stored.key_id).toBe(box.keyId);
    expect(stored.iv).toHaveLength(12);
    expect(stored.tag).toHaveLength(16);
    for (const column of [stored.iv, stored.ciphertext, stored.tag]) {
      expect(column.toString('utf8')).not.toContain(value);
      expect(column.toString('latin1')).not.toContain(value);
    }
    expect(await readWorkspaceSecret(prisma, box, acmeId, 'github.token')).toBe(value);
    expect(await readWorkspaceSecret(prisma, box, acmeId, 'missing')).toBeNull();
    const many = await readWorkspaceSecrets(prisma, box, acmeId, ['github.token', 'missing', 'github.token']);
    expect([...many]).toEqual([['github.token', value]]);
    // Another box (a wrong SECRETS_KEY) cannot open it.
    await expect(readWorkspaceSecret(prisma, new SecretBox({ key: newSecretsKey() }), acmeId, 'github.token')).rejects.toThrow(/SECRETS_KEY_PREVIOUS/);
  });

  it('refuses a ciphertext copied to another row (bound to its workspace and name)', async () => {
    await admin('PUT', `${ws}/secrets/SOURCE`, { value: newValue('source') });
    await admin('PUT', `${ws}/secrets/TARGET`, { value: newValue('target') });
    await otherAdmin('PUT', '/v1/workspaces/other/secrets/SOURCE', { value: newValue('theirs') });
    const copy = `UPDATE workspace_secrets t SET key_id = s.key_id, iv = s.iv, ciphertext = s.ciphertext, tag = s.tag
                    FROM workspace_secrets s WHERE s.workspace_id = $1 AND s.name = 'SOURCE' AND t.workspace_id = $2 AND t.name = $3`;
    await pg.query(copy, [acmeId, acmeId, 'TARGET']);
    await expect(readWorkspaceSecret(prisma, box, acmeId, 'TARGET')).rejects.toThrow(/does not authenticate/);
    await pg.query(copy, [acmeId, otherId, 'SOURCE']);
    await expect(readWorkspaceSecret(prisma, box, otherId, 'SOURCE')).rejects.toThrow(/does not authenticate/);
  });

  it('lists names and dates to members, sorted by name, never values', async () => {
    const listed = await member('GET', `${ws}/secrets`);
    expect(listed.status).toBe(200);
    expect(ListSecretsResponseSchema.parse(listed.body)).toEqual(listed.body);
    const names = listed.body.secrets.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining(['OPENAI_KEY', 'github.token']));
    expect(names).toEqual([...names].sort());
    expect((await otherAdmin('GET', '/v1/workspaces/other/secrets')).body.secrets.map((s: { name: string }) => s.name)).toEqual(['SOURCE']);
  });

  it('deletes (204), then 404 SECRET_NOT_FOUND, and the reader finds nothing', async () => {
    await admin('PUT', `${ws}/secrets/GONE`, { value: newValue('gone') });
    expect((await admin('DELETE', `${ws}/secrets/GONE`)).status).toBe(204);
    const again = await admin('DELETE', `${ws}/secrets/GONE`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'SECRET_NOT_FOUND', details: { name: 'GONE' } });
    expect(await readWorkspaceSecret(prisma, box, acmeId, 'GONE')).toBeNull();
  });

  it.each([
    ['viewer lists', () => viewer('GET', `${ws}/secrets`)],
    ['viewer puts', () => viewer('PUT', `${ws}/secrets/NOPE`, { value: newValue('viewer') })],
    ['member puts', () => member('PUT', `${ws}/secrets/NOPE`, { value: newValue('member') })],
    ['member replaces', () => member('PUT', `${ws}/secrets/OPENAI_KEY`, { value: newValue('member') })],
    ['member deletes', () => member('DELETE', `${ws}/secrets/OPENAI_KEY`)],
    ['viewer deletes', () => viewer('DELETE', `${ws}/secrets/OPENAI_KEY`)],
  ])('refuses: %s (403 FORBIDDEN), changing nothing', async (_what, call) => {
    const before = await row(acmeId, 'OPENAI_KEY');
    const response = await call();
    expect(response.status).toBe(403);
    expect((response.body as any).error.code).toBe('FORBIDDEN');
    expect(await row(acmeId, 'OPENAI_KEY')).toEqual(before);
    expect(await row(acmeId, 'NOPE')).toBeUndefined();
  });

  it("keeps workspaces apart: another workspace's name is its own secret, and theirs is 404 here", async () => {
    const mine = await readWorkspaceSecret(prisma, box, acmeId, 'OPENAI_KEY');
    const deleted = await otherAdmin('DELETE', '/v1/workspaces/other/secrets/OPENAI_KEY');
    expect(deleted.status).toBe(404);
    expect(deleted.body.error.code).toBe('SECRET_NOT_FOUND');
    const theirs = newValue('theirs');
    expect((await otherAdmin('PUT', '/v1/workspaces/other/secrets/OPENAI_KEY', { value: theirs })).status).toBe(201);
    expect(await readWorkspaceSecret(prisma, box, acmeId, 'OPENAI_KEY')).toBe(mine);
    expect(await readWorkspaceSecret(prisma, box, otherId, 'OPENAI_KEY')).toBe(theirs);
    // A token of one workspace cannot reach another's path at all.
    const crossed = await admin('GET', '/v1/workspaces/other/secrets');
    expect(crossed.status).toBe(403);
    expect(crossed.body.error.code).toBe('WORKSPACE_FORBIDDEN');
  });

  it.each([
    ['a name starting with a digit', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/1KEY`, { value: newValue('bad-name') })],
    ['a name with a colon', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/a%3Ab`, { value: newValue('bad-name') })],
    ['a name over 100 characters', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/${'K'.repeat(101)}`, { value: newValue('bad-name') })],
    ['a bad name on delete', 400, 'VALIDATION_FAILED', () => admin('DELETE', `${ws}/secrets/-x`)],
    ['no value', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/K`, {})],
    ['an empty value', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/K`, { value: '' })],
    ['a number', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/K`, { value: 12345678 })],
    ['an unknown field', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/K`, { value: newValue('extra'), note: newValue('note') })],
    ['a value over the size limit', 400, 'VALIDATION_FAILED', () => admin('PUT', `${ws}/secrets/K`, { value: newValue('big') + 'x'.repeat(MAX_SECRET_BYTES) })],
    ['a body over the body limit', 413, 'PAYLOAD_TOO_LARGE', () => admin('PUT', `${ws}/secrets/K`, { value: newValue('huge') + 'x'.repeat(1_100_000) })],
    ['malformed JSON', 400, 'MALFORMED_JSON', () => admin('PUT', `${ws}/secrets/K`, `{"value": "${newValue('malformed')}`)],
    ['a text body', 415, 'UNSUPPORTED_MEDIA_TYPE', () => admin('PUT', `${ws}/secrets/K`, newValue('text'), { 'content-type': 'text/plain' })],
  ])('refuses %s (%i %s), storing nothing', async (_what, status, code, call) => {
    const response = await call();
    expect(response.status).toBe(status);
    expect((response.body as any).error.code).toBe(code);
    expect(await row(acmeId, 'K')).toBeUndefined();
  });

  it('answers 503 UNAVAILABLE on every secrets route of a gateway without SECRETS_KEY', async () => {
    const bare = await startGateway({ SECRETS_KEY: '' });
    try {
      const call = apiClient(bare.url, (await admin('POST', `${ws}/tokens`, { name: 'bare', role: 'admin' })).body.token);
      for (const [method, path, body] of [['GET', `${ws}/secrets`], ['PUT', `${ws}/secrets/K`, { value: newValue('nokey') }], ['DELETE', `${ws}/secrets/OPENAI_KEY`]] as const) {
        const response = await call(method, path, body);
        responses.push(response);
        expect(response.status).toBe(503);
        expect(response.body.error).toEqual({ code: 'UNAVAILABLE', message: expect.stringContaining('SECRETS_KEY is not configured') });
      }
      expect(await row(acmeId, 'K')).toBeUndefined();
    } finally {
      await bare.proc.stop();
    }
  });

  it('refuses to start with a malformed SECRETS_KEY, naming the variable without echoing it', async () => {
    const bad = `not-a-key-${randomBytes(8).toString('hex')}`;
    const error = await startGateway({ SECRETS_KEY: bad }).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.message).toMatch(/SECRETS_KEY: must be 32 bytes/);
    expect(error?.message).not.toContain(bad);
  });

  it('rotates: with the old key in SECRETS_KEY_PREVIOUS, old rows still open and a PUT re-seals with the new key', async () => {
    const newKey = newSecretsKey();
    const rotated = new SecretBox({ key: newKey, previousKeys: [key] });
    const before = await readWorkspaceSecret(prisma, box, acmeId, 'OPENAI_KEY');
    expect(await readWorkspaceSecret(prisma, rotated, acmeId, 'OPENAI_KEY')).toBe(before);
    const next = await startGateway({ SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: key });
    try {
      const call = apiClient(next.url, (await admin('POST', `${ws}/tokens`, { name: 'rotated', role: 'admin' })).body.token);
      const value = newValue('rotated');
      responses.push(await call('PUT', `${ws}/secrets/OPENAI_KEY`, { value }));
      expect((await row(acmeId, 'OPENAI_KEY')).key_id).toBe(rotated.keyId);
      expect(await readWorkspaceSecret(prisma, rotated, acmeId, 'OPENAI_KEY')).toBe(value);
      expect((await row(acmeId, 'github.token')).key_id).toBe(box.keyId);
      expect(await readWorkspaceSecret(prisma, rotated, acmeId, 'github.token')).toBeTruthy();
    } finally {
      await next.proc.stop();
    }
  });

  it('never let a value out: no response body or header, and no gateway log line, holds one', () => {
    expect(values.length).toBeGreaterThan(20);
    expect(responses.length).toBeGreaterThan(30);
    const said = responses.map((r) => JSON.stringify(r.body) + JSON.stringify([...r.headers])).join('\n') + platform.gateway.output();
    for (const value of values) expect(said).not.toContain(value);
    // The log is really there, and at trace level: the check above searched something.
    expect(platform.gateway.output()).toContain('gateway listening');
  });

  /** One more gateway process on the same database and Redis prefix, with some variables changed. */
  async function startGateway(env: Record<string, string>): Promise<{ proc: ServiceProcess; url: string }> {
    const proc = await spawnService('gateway', { ...platform.env, LOG_LEVEL: 'trace', ...env }, { readyPattern: /gateway listening/ });
    const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(proc.output())?.[1];
    return { proc, url: `http://127.0.0.1:${port}` };
  }
});
