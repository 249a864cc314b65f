import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { FactSchema } from '@switchyard/contracts';
import { newSecretsKey } from '@switchyard/core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { deliver, gitHubHeaders, hmacHex, newWebhookSecret, pushPayload } from './webhook-helpers';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 36, inbound webhooks: deliveries posted with no platform token to the
 * real gateway and event-log processes, signed as GitHub and a generic HMAC
 * sender sign them. A verified delivery is one stored fact; a replay, a bad
 * signature or a bad body records nothing (counted in PostgreSQL once the
 * outbox and `ingest` settled).
 */
describe('issue 36: webhook deliveries', () => {
  const ws = '/v1/workspaces/acme';
  const gitHubSecret = newWebhookSecret();
  const hmacSecret = newWebhookSecret();
  let platform: TestPlatform;
  let admin: Api;
  const post = (path: string, raw: Buffer | string, headers: Record<string, string>) => deliver(platform.gatewayUrl, path, raw, headers);
  const storedFact = (id: string) =>
    waitFor(async () => {
      const response = await admin('GET', `${ws}/events/${id}`);
      return response.status === 200 && FactSchema.parse(response.body);
    }, { what: `fact ${id} stored` });
  /** Asserts that `act` records no fact (counted once everything in flight settled). */
  const recordsNothing = async (act: () => Promise<void>) => {
    const before = await platform.factsRecorded();
    await act();
    expect(await platform.factsRecorded()).toBe(before);
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey(), WEBHOOK_ALLOW_UNSIGNED: 'true', WEBHOOK_RATE_LIMIT_PER_SECOND: '40' } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    await platform.createWorkspace('other');
    const subject = { type: 'repository', idPath: '$.repository.full_name' };
    expect((await admin('PUT', `${ws}/webhooks/github`, { verifier: 'github', secret: gitHubSecret, subject })).status).toBe(201);
    const hmac = { verifier: 'hmac-sha256', secret: hmacSecret, signatureHeader: 'X-Signature', deliveryIdHeader: 'X-Delivery-Id', kind: { path: '$.event.type', prefix: 'ci.' }, subject: { type: 'build', idPath: "$.event['build id']" } };
    expect((await admin('PUT', `${ws}/webhooks/ci`, hmac)).status).toBe(201);
    const { deliveryIdHeader: _none, ...byBody } = hmac;
    expect((await admin('PUT', `${ws}/webhooks/ci-plain`, byBody)).status).toBe(201);
    expect((await admin('PUT', `${ws}/webhooks/open`, { verifier: 'none', kind: { prefix: 'form.submitted' }, subject: { type: 'form', idPath: '$.form' } })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it('records a GitHub-signed delivery as one fact: kind, subject, the body as payload, the webhook as actor', async () => {
    const raw = pushPayload('acme/api', 'a'.repeat(40));
    const delivery = randomUUID();
    const before = await platform.factsRecorded();
    const response = await post(`${ws}/webhooks/github`, raw, gitHubHeaders(gitHubSecret, raw, 'push', delivery));
    expect(response.status).toBe(202);
    const fact = await storedFact(response.body.id);
    expect(fact).toMatchObject({
      kind: 'github.push',
      subject: { type: 'repository', id: 'acme/api' },
      actor: { type: 'service', id: 'webhook:github', name: 'github' },
      idempotencyKey: `webhook:github:${delivery}`,
    });
    expect(fact.payload).toEqual(JSON.parse(raw));
    expect(await platform.factsRecorded()).toBe(before + 1);
  });

  it('answers a replayed delivery id like the first and records nothing new', async () => {
    const raw = pushPayload('acme/web', 'b'.repeat(40));
    const headers = gitHubHeaders(gitHubSecret, raw, 'push');
    const first = await post(`${ws}/webhooks/github`, raw, headers);
    expect(first.status).toBe(202);
    await storedFact(first.body.id);
    await recordsNothing(async () => {
      for (let i = 0; i < 3; i++) expect(await post(`${ws}/webhooks/github`, raw, headers)).toMatchObject({ status: 202, body: { id: first.body.id } });
    });
    const listed = await admin('GET', `${ws}/events?kind=github.push&limit=1000`);
    expect(listed.body.events.filter((f: { idempotencyKey?: string }) => f.idempotencyKey === `webhook:github:${headers['x-github-delivery']}`)).toHaveLength(1);
  });

  it('refuses a wrong, missing or malformed signature, and a body changed by one byte, with 401 and records nothing', async () => {
    const raw = pushPayload('acme/api', 'c'.repeat(40));
    const signed = gitHubHeaders(gitHubSecret, raw, 'push');
    const { 'x-hub-signature-256': _signature, ...unsigned } = signed;
    const changed = Buffer.from(raw);
    changed[changed.indexOf('acme/api') + 5] = 'b'.charCodeAt(0);
    await recordsNothing(async () => {
      const attempts = [
        post(`${ws}/webhooks/github`, raw, gitHubHeaders(newWebhookSecret(), raw, 'push')),
        post(`${ws}/webhooks/github`, raw, unsigned),
        post(`${ws}/webhooks/github`, raw, { ...signed, 'x-hub-signature-256': signed['x-hub-signature-256']!.slice('sha256='.length) }),
        post(`${ws}/webhooks/github`, raw, { ...signed, 'x-hub-signature-256': 'sha256=zz' }),
        post(`${ws}/webhooks/github`, changed, signed),
        post(`${ws}/webhooks/github`, `${raw} `, signed),
        post(`${ws}/webhooks/ci`, raw, { 'x-signature': signed['x-hub-signature-256']!, 'x-delivery-id': 'd' }),
      ];
      for (const response of await Promise.all(attempts)) {
        expect(response).toMatchObject({ status: 401, body: { error: { code: 'WEBHOOK_SIGNATURE_INVALID' } } });
      }
    });
  });

  it('verifies hmac-sha256 in a named header, hex or sha256= form; the kind from a body path; the delivery id from its header', async () => {
    const raw = JSON.stringify({ event: { type: 'Build-Finished', 'build id': 731, status: 'green' } });
    const bare = await post(`${ws}/webhooks/ci`, raw, { 'X-Signature': hmacHex(hmacSecret, raw), 'X-Delivery-Id': 'build-731' });
    expect(bare.status).toBe(202);
    expect(await storedFact(bare.body.id)).toMatchObject({ kind: 'ci.build_finished', subject: { type: 'build', id: '731' }, idempotencyKey: 'webhook:ci:build-731', payload: JSON.parse(raw) });
    const raw2 = JSON.stringify({ event: { type: 'started', 'build id': 'b-9' } });
    const prefixed = await post(`${ws}/webhooks/ci`, raw2, { 'x-signature': `sha256=${hmacHex(hmacSecret, raw2)}`, 'x-delivery-id': 'build-9' });
    expect(prefixed.status).toBe(202);
    expect(await storedFact(prefixed.body.id)).toMatchObject({ kind: 'ci.started', subject: { type: 'build', id: 'b-9' } });
    await recordsNothing(async () => {
      expect((await post(`${ws}/webhooks/ci`, raw, { 'x-signature': hmacHex(hmacSecret, raw), 'x-delivery-id': 'build-731' })).body).toEqual({ id: bare.body.id });
      const reused = await post(`${ws}/webhooks/ci`, raw2, { 'x-signature': hmacHex(hmacSecret, raw2), 'x-delivery-id': 'build-731' });
      expect(reused).toMatchObject({ status: 409, body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } } });
    });
  });

  it('without a delivery id header, keys a delivery by its body: the same bytes are one fact', async () => {
    const raw = JSON.stringify({ event: { type: 'deployed', 'build id': 'b-1' } });
    const headers = { 'x-signature': hmacHex(hmacSecret, raw) };
    const first = await post(`${ws}/webhooks/ci-plain`, raw, headers);
    expect(first.status).toBe(202);
    expect((await storedFact(first.body.id)).idempotencyKey).toMatch(/^webhook:ci-plain:sha256:[0-9a-f]{64}$/);
    await recordsNothing(async () => expect((await post(`${ws}/webhooks/ci-plain`, raw, headers)).body).toEqual({ id: first.body.id }));
  });

  it('records an unsigned delivery to a none webhook when the operator allows them', async () => {
    const response = await post(`${ws}/webhooks/open`, JSON.stringify({ form: 'signup', email: 'a@example.com' }), {});
    expect(response.status).toBe(202);
    expect(await storedFact(response.body.id)).toMatchObject({ kind: 'form.submitted', subject: { type: 'form', id: 'signup' } });
  });

  it('answers bad signed bodies and unusable mappings with a stable 4xx and records nothing', async () => {
    const ci = (raw: Buffer | string, extra: Record<string, string> = {}) => post(`${ws}/webhooks/ci`, raw, { 'x-signature': hmacHex(hmacSecret, raw), 'x-delivery-id': randomUUID(), ...extra });
    const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
      ['malformed JSON', () => ci('{"event":'), 400, 'MALFORMED_JSON'],
      ['not UTF-8', () => ci(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])), 400, 'MALFORMED_JSON'],
      ['a scalar', () => ci('"just text"'), 400, 'MALFORMED_JSON'],
      ['an array', () => ci('[1,2]'), 400, 'WEBHOOK_DELIVERY_INVALID'],
      ['a duplicate key', () => ci('{"event":{"type":"a","build id":1},"event":{"type":"b","build id":2}}'), 400, 'VALIDATION_FAILED'],
      ['NUL', () => ci('{"event":{"type":"a","build id":"x\\u0000y"}}'), 400, 'VALIDATION_FAILED'],
      ['a lone surrogate', () => ci('{"event":{"type":"a","build id":"\\ud800"}}'), 400, 'VALIDATION_FAILED'],
      ['deep nesting', () => ci(`{"event":${'['.repeat(100)}${']'.repeat(100)}}`), 400, 'JSON_TOO_DEEP'],
      ['a lying Content-Encoding', () => ci('{"event":{}}', { 'content-encoding': 'gzip' }), 400, 'BODY_ENCODING_INVALID'],
      ['an unknown Content-Encoding', () => ci('{"event":{}}', { 'content-encoding': 'zstd' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['text/plain', () => ci('{"event":{}}', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['latin1', () => ci('{"event":{}}', { 'content-type': 'application/json; charset=latin1' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['over the body limit', () => ci(`{"blob":"${'x'.repeat(1_100_000)}"}`), 413, 'PAYLOAD_TOO_LARGE'],
      ['over the payload limit', () => ci(`{"event":{"type":"a","build id":1},"blob":"${'x'.repeat(70_000)}"}`), 413, 'PAYLOAD_TOO_LARGE'],
      ['no kind', () => ci('{"event":{"build id":1}}'), 400, 'WEBHOOK_DELIVERY_INVALID'],
      ['a kind outside the grammar', () => ci('{"event":{"type":"über/alles","build id":1}}'), 400, 'WEBHOOK_DELIVERY_INVALID'],
      ['no subject id', () => ci('{"event":{"type":"a"}}'), 400, 'WEBHOOK_DELIVERY_INVALID'],
      ['an object as subject id', () => ci('{"event":{"type":"a","build id":{"n":1}}}'), 400, 'WEBHOOK_DELIVERY_INVALID'],
      ['no delivery id', () => post(`${ws}/webhooks/ci`, '{"event":{"type":"a","build id":1}}', { 'x-signature': hmacHex(hmacSecret, '{"event":{"type":"a","build id":1}}') }), 400, 'WEBHOOK_DELIVERY_INVALID'],
      ['a delivery id with a space', () => ci('{"event":{"type":"a","build id":1}}', { 'x-delivery-id': 'a b' }), 400, 'WEBHOOK_DELIVERY_INVALID'],
      ['a bad webhook name', () => post(`${ws}/webhooks/Bad%20Name`, '{}', {}), 400, 'VALIDATION_FAILED'],
      ['a bad workspace slug', () => post('/v1/workspaces/%E0%A4%A/webhooks/ci', '{}', {}), 400, 'VALIDATION_FAILED'],
    ];
    await recordsNothing(async () => {
      for (const [what, send, status, code] of cases) {
        const response = await send();
        expect({ what, status: response.status, code: response.body?.error?.code }).toEqual({ what, status, code });
      }
    });
    // The gzip a sender did send, truthfully, is read and verified over its decoded bytes.
    const raw = JSON.stringify({ event: { type: 'zipped', 'build id': 5 } });
    const zipped = await post(`${ws}/webhooks/ci`, gzipSync(raw), { 'content-encoding': 'gzip', 'x-signature': hmacHex(hmacSecret, raw), 'x-delivery-id': randomUUID() });
    expect(zipped.status).toBe(202);
  });

  it('answers an unknown webhook and an unknown workspace with the same 404', async () => {
    const raw = pushPayload('acme/api', 'd'.repeat(40));
    const headers = gitHubHeaders(gitHubSecret, raw, 'push');
    const answers = await Promise.all([`${ws}/webhooks/nope`, '/v1/workspaces/no-such-ws/webhooks/nope', '/v1/workspaces/other/webhooks/github'].map((path) => post(path, raw, headers)));
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: { code: 'WEBHOOK_NOT_FOUND', message: 'no such webhook', details: { name: expect.any(String) } } });
    }
    const headerNames = answers.map((answer) => [...answer.headers.keys()].filter((name) => name !== 'date' && name !== 'x-request-id'));
    expect(headerNames[1]).toEqual(headerNames[0]);
    expect(answers[1]!.headers.get('content-length')).toBe(answers[0]!.headers.get('content-length'));
  });

  it('limits deliveries per webhook (429 with Retry-After), the other webhooks unaffected', async () => {
    const burst = await Promise.all(Array.from({ length: 150 }, () => post(`${ws}/webhooks/flood`, '{}', {})));
    const limited = burst.filter((response) => response.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(burst.every((response) => response.status === 429 || response.status === 404)).toBe(true);
    const raw = JSON.stringify({ form: 'after-flood' });
    expect((await post(`${ws}/webhooks/open`, raw, {})).status).toBe(202);
  });
});
