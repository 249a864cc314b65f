import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ListWebhooksResponseSchema, WebhookSchema } from '@switchyard/contracts';
import { newSecretsKey } from '@switchyard/core';
import { createWorkspace, SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { createInProcessGateway, type InProcessGateway } from './in-process-gateway';
import { roleClients } from './role-clients';
import { deliver, newWebhookSecret } from './webhook-helpers';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 36, inbound webhooks: their configuration over real HTTP against the
 * real gateway and event-log processes (every log level on). Admins only,
 * per workspace; the secret is sealed, never answered, logged or put in a
 * fact; each change records its fact; `none` only when the operator allows it.
 */
describe('issue 36: webhook configuration', () => {
  const ws = '/v1/workspaces/acme';
  const secret = newWebhookSecret();
  const github = { verifier: 'github', secret, subject: { type: 'repository', idPath: '$.repository.full_name' } };
  let platform: TestPlatform;
  let keyless: InProcessGateway;
  let admin: Api;
  let adminToken: string;
  let member: Api;
  let viewer: Api;
  let otherAdmin: Api;
  let pg: Client;
  const bodies: unknown[] = [];
  const facts = async (kind: string) => (await admin('GET', `${ws}/events?kind=${kind}&limit=1000`)).body.events as Array<{ subject: { id: string }; payload: Record<string, unknown>; actor: unknown }>;

  beforeAll(async () => {
    [platform, keyless] = await Promise.all([startTestPlatform({ env: { SECRETS_KEY: newSecretsKey(), LOG_LEVEL: 'trace' } }), createInProcessGateway()]);
    const recorded = (api: Api): Api => async (...args) => {
      const response = await api(...args);
      bodies.push(response.body);
      return response;
    };
    ({ adminToken, admin, member, viewer, otherAdmin } = await roleClients(platform, 'acme', 'other', recorded));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await Promise.all([platform?.stop(), keyless?.close()]);
  });

  it('creates (201) and replaces (200) a webhook, answering its configuration and never its secret', async () => {
    const created = await admin('PUT', `${ws}/webhooks/gh`, github);
    expect(created.status).toBe(201);
    expect(WebhookSchema.parse(created.body)).toEqual(created.body);
    expect(created.body).toEqual({
      name: 'gh',
      verifier: 'github',
      kind: { header: 'x-github-event', prefix: 'github.' },
      subject: github.subject,
      deliveryPath: '/v1/workspaces/acme/webhooks/gh',
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
    });
    const replaced = await admin('PUT', `${ws}/webhooks/gh`, { ...github, kind: { header: 'X-GitHub-Event', prefix: 'gh.' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ kind: { header: 'x-github-event', prefix: 'gh.' }, createdAt: created.body.createdAt });
    const listed = await admin('GET', `${ws}/webhooks`);
    expect(ListWebhooksResponseSchema.parse(listed.body).webhooks.map((w) => w.name)).toEqual(['gh']);
    expect((await admin('GET', `${ws}/webhooks/gh`)).body).toEqual(replaced.body);
  });

  it('records webhook.configured for each write, without the secret', async () => {
    const configured = await waitFor(async () => {
      const found = (await facts('webhook.configured')).filter((fact) => fact.subject.id === 'gh');
      return found.length === 2 && found;
    }, { what: 'two webhook.configured facts' });
    expect(configured.map((fact) => fact.payload.created)).toEqual([true, false]);
    expect(configured[1]).toMatchObject({ payload: { name: 'gh', verifier: 'github', kind: { prefix: 'gh.' } }, actor: { type: 'member' } });
    expect(JSON.stringify(configured)).not.toContain(secret);
  });

  it('keeps the secret sealed: not in the row\'s config, not in the ciphertext, not in any answer or log line', async () => {
    const row = (await pg.query(`SELECT config::text, key_id, iv, ciphertext, tag FROM webhooks WHERE name = 'gh'`)).rows[0];
    expect(row.config).not.toContain(secret);
    expect(row.iv).toHaveLength(12);
    expect(row.tag).toHaveLength(16);
    expect(Buffer.from(row.ciphertext).includes(Buffer.from(secret))).toBe(false);
    expect(JSON.stringify(bodies)).not.toContain(secret);
    expect(platform.gateway.output()).not.toContain(secret);
  });

  it('refuses verifier none unless the operator allows it (403), storing nothing', async () => {
    const none = await admin('PUT', `${ws}/webhooks/open`, { verifier: 'none', kind: { prefix: 'form.submitted' }, subject: { type: 'form', idPath: '$.form' } });
    expect(none).toMatchObject({ status: 403, body: { error: { code: 'WEBHOOK_UNSIGNED_REFUSED' } } });
    expect((await admin('GET', `${ws}/webhooks/open`)).body.error.code).toBe('WEBHOOK_NOT_FOUND');
    // One stored while allowed, the allowance since withdrawn: its deliveries are refused too.
    await pg.query(
      `INSERT INTO webhooks (workspace_id, name, verifier, config) SELECT id, 'legacy', 'none', $1::jsonb FROM workspaces WHERE slug = 'acme'`,
      [JSON.stringify({ kind: { prefix: 'form.submitted' }, subject: { type: 'form', idPath: '$.form' } })],
    );
    const delivery = await deliver(platform.gatewayUrl, `${ws}/webhooks/legacy`, '{"form":"x"}', {});
    expect(delivery).toMatchObject({ status: 403, body: { error: { code: 'WEBHOOK_UNSIGNED_REFUSED' } } });
  });

  it.each([
    ['no body', undefined, 'VALIDATION_FAILED'],
    ['an unknown verifier', { ...github, verifier: 'gitlab' }, 'VALIDATION_FAILED'],
    ['no secret', { verifier: 'github', subject: github.subject }, 'VALIDATION_FAILED'],
    ['a short secret', { ...github, secret: 'short' }, 'VALIDATION_FAILED'],
    ['a secret with a line break', { ...github, secret: `${secret}\n` }, 'VALIDATION_FAILED'],
    ['a secret on none', { verifier: 'none', secret, kind: { prefix: 'a.b' }, subject: github.subject }, 'VALIDATION_FAILED'],
    ['hmac without its signature header', { ...github, verifier: 'hmac-sha256', kind: { prefix: 'a.b' } }, 'VALIDATION_FAILED'],
    ['a signature header that is no token', { ...github, verifier: 'hmac-sha256', kind: { prefix: 'a.b' }, signatureHeader: 'X Sig' }, 'VALIDATION_FAILED'],
    ['a delivery id header on github', { ...github, deliveryIdHeader: 'x-id' }, 'VALIDATION_FAILED'],
    ['header and path both', { ...github, kind: { header: 'x-e', path: '$.a' } }, 'VALIDATION_FAILED'],
    ['a prefix alone ending with a dot', { ...github, kind: { prefix: 'github.' } }, 'VALIDATION_FAILED'],
    ['an uppercase prefix', { ...github, kind: { header: 'x-e', prefix: 'GitHub.' } }, 'VALIDATION_FAILED'],
    ['a wildcard path', { ...github, kind: { path: '$.*' } }, 'VALIDATION_FAILED'],
    ['a descendant path', { ...github, subject: { type: 'repository', idPath: '$..full_name' } }, 'VALIDATION_FAILED'],
    ['a path without $', { ...github, subject: { type: 'repository', idPath: 'repository.full_name' } }, 'VALIDATION_FAILED'],
    ['the whole body as id', { ...github, subject: { type: 'repository', idPath: '$' } }, 'VALIDATION_FAILED'],
    ['a NUL in a quoted name', { ...github, subject: { type: 'repository', idPath: "$['a\u0000']" } }, 'VALIDATION_FAILED'],
    ['an uppercase subject type', { ...github, subject: { type: 'Repo', idPath: '$.a' } }, 'VALIDATION_FAILED'],
    ['an extra field', { ...github, url: 'https://example.com' }, 'VALIDATION_FAILED'],
    ['an array', [github], 'VALIDATION_FAILED'],
  ])('refuses %s on PUT with a stable 4xx', async (_what, body, code) => {
    const response = await admin('PUT', `${ws}/webhooks/bad`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
  });

  it('refuses bad names, and bodies that are not JSON, with a stable 4xx', async () => {
    expect((await admin('PUT', `${ws}/webhooks/Upper`, github)).status).toBe(400);
    expect((await admin('PUT', `${ws}/webhooks/${'a'.repeat(64)}`, github)).status).toBe(400);
    expect((await admin('PUT', `${ws}/webhooks/%E0%A4%A`, github)).status).toBe(400);
    expect((await admin('PUT', `${ws}/webhooks/gh2`, '{"verifier":', {})).body.error.code).toBe('MALFORMED_JSON');
    expect((await admin('PUT', `${ws}/webhooks/gh2`, JSON.stringify(github), { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await admin('PATCH', `${ws}/webhooks/gh`, github)).status).toBe(405);
    expect((await admin('GET', `${ws}/webhooks`)).body.webhooks.map((w: { name: string }) => w.name)).toEqual(['gh', 'legacy']);
  });

  it('lets only admins of the workspace read or change its webhooks', async () => {
    for (const api of [member, viewer]) {
      for (const [method, path, body] of [['GET', `${ws}/webhooks`], ['GET', `${ws}/webhooks/gh`], ['PUT', `${ws}/webhooks/gh`, github], ['DELETE', `${ws}/webhooks/gh`]] as const) {
        expect(await api(method, path, body)).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
      }
    }
    for (const [method, path, body] of [['GET', `${ws}/webhooks`], ['GET', `${ws}/webhooks/gh`], ['PUT', `${ws}/webhooks/gh`, { ...github, secret: newWebhookSecret() }], ['DELETE', `${ws}/webhooks/gh`]] as const) {
      expect(await otherAdmin(method, path, body)).toMatchObject({ status: 403, body: { error: { code: 'WORKSPACE_FORBIDDEN' } } });
    }
    expect((await otherAdmin('GET', '/v1/workspaces/other/webhooks')).body).toEqual({ webhooks: [] });
    expect((await otherAdmin('GET', '/v1/workspaces/other/webhooks/gh')).body.error.code).toBe('WEBHOOK_NOT_FOUND');
    expect((await otherAdmin('DELETE', '/v1/workspaces/other/webhooks/gh')).status).toBe(404);
    expect((await admin('GET', `${ws}/webhooks/gh`)).body.kind.prefix).toBe('gh.');
  });

  it('deletes (204, then 404) recording webhook.deleted; a delivery to it is then a 404', async () => {
    expect((await admin('DELETE', `${ws}/webhooks/gh`)).status).toBe(204);
    expect((await admin('DELETE', `${ws}/webhooks/gh`)).body.error.code).toBe('WEBHOOK_NOT_FOUND');
    const deleted = await waitFor(async () => (await facts('webhook.deleted')).find((fact) => fact.subject.id === 'gh'), { what: 'webhook.deleted' });
    expect(deleted.payload).toEqual({ name: 'gh', verifier: 'github' });
    expect((await deliver(platform.gatewayUrl, `${ws}/webhooks/gh`, '{}', {})).status).toBe(404);
  });

  it('answers 503 on every webhook route, deliveries too, without SECRETS_KEY', async () => {
    const server = keyless.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const sql = new SqlPool({ databaseUrl: keyless.databaseUrl, poolMax: 1 });
      const api = apiClient(url, (await createWorkspace(sql, 'acme').finally(() => sql.$disconnect())).token);
      expect((await api('GET', `${ws}/webhooks`)).body.error.code).toBe('UNAVAILABLE');
      expect((await api('PUT', `${ws}/webhooks/gh`, github)).status).toBe(503);
      expect((await api('DELETE', `${ws}/webhooks/gh`)).status).toBe(503);
      expect((await deliver(url, `${ws}/webhooks/gh`, '{}', {})).status).toBe(503);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('runs the curl and openssl example of docs/webhooks.md: one github.push fact, the replay the same id', async () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../docs/webhooks.md'), 'utf8');
    const script = /runs this block\. -->\n```sh\n([\s\S]*?)\n```/.exec(doc)?.[1];
    expect(script).toBeDefined();
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script!], { env: { PATH: process.env.PATH, SY: platform.gatewayUrl, TOKEN: adminToken }, timeout: 30_000 });
    const [first, replay] = [...stdout.matchAll(/\{"id":"([0-9a-f-]{36})"\} \((first|replay)\)/g)].map((match) => match[1]);
    expect(first).toBeDefined();
    expect(replay).toBe(first);
    const fact = await waitFor(async () => (await facts('github.push')).find((f) => f.subject.id === 'acme/api'), { what: 'the example fact' });
    expect(fact).toMatchObject({ id: first, payload: { ref: 'refs/heads/main', pusher: { name: 'zoe' } } });
    expect((await facts('github.**')).filter((f) => f.subject.id === 'acme/api')).toHaveLength(1);
  });
});
