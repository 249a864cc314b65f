import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { AcceptedFactSchema, PutWebhookRequestSchema, type WebhookMapping } from '@switchyard/contracts';
import { duplicateKeyIn } from '../src/json-duplicate-keys';
import { kindPartOf, webhookDeliveryFact, type WebhookDelivery } from '../src/webhook-delivery';
import { verifyWebhookSignature } from '../src/webhook-signature';

const SECRET = 'It\'s a Secret to Everybody';
const workspace = { id: '0190a0f0-0000-7000-8000-000000000001', slug: 'acme' };

function delivery(mapping: WebhookMapping, headers: Record<string, string>, body: unknown, verifier: WebhookDelivery['verifier'] = 'hmac-sha256'): WebhookDelivery {
  const raw = Buffer.from(JSON.stringify(body));
  return { workspace, name: 'ci', verifier, mapping, header: (name) => headers[name], body, raw };
}

describe('issue 36: webhook signatures', () => {
  // GitHub's documented test vector (docs "Validating webhook deliveries").
  const body = Buffer.from('Hello, World!');
  const githubSignature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it('verifies GitHub\'s own example, in constant time over the raw bytes', () => {
    expect(verifyWebhookSignature(SECRET, body, githubSignature, true)).toBe(true);
    expect(verifyWebhookSignature(SECRET, body, githubSignature.toUpperCase().replace('SHA256=', 'sha256='), true)).toBe(true);
    expect(verifyWebhookSignature(SECRET, Buffer.from('Hello, World?'), githubSignature, true)).toBe(false);
    expect(verifyWebhookSignature(`${SECRET}!`, body, githubSignature, true)).toBe(false);
  });

  it('GitHub needs the sha256= form; hmac-sha256 takes it or the bare hex', () => {
    const hex = githubSignature.slice('sha256='.length);
    expect(verifyWebhookSignature(SECRET, body, hex, true)).toBe(false);
    expect(verifyWebhookSignature(SECRET, body, hex, false)).toBe(true);
    expect(verifyWebhookSignature(SECRET, body, ` ${githubSignature} `, false)).toBe(true);
  });

  it.each([undefined, '', 'sha256=', 'sha1=757107ea0eb2509fc211221cce984b8a37570b6d', 'sha256=zz', `${'0'.repeat(64)}`, `sha256=${'7'.repeat(65)}`, 'sha256=757107ea, sha256=757107ea'])(
    'refuses %j',
    (header) => {
      expect(verifyWebhookSignature(SECRET, body, header, false)).toBe(false);
    },
  );

  it('a one-byte change anywhere fails (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, flip) => {
        const signature = `sha256=${createHmac('sha256', SECRET).update(bytes).digest('hex')}`;
        expect(verifyWebhookSignature(SECRET, bytes, signature, true)).toBe(true);
        const changed = Buffer.from(bytes);
        const index = at % changed.length;
        changed[index] = changed[index]! ^ flip;
        expect(verifyWebhookSignature(SECRET, changed, signature, true)).toBe(false);
      }),
    );
  });
});

describe('issue 36: a delivery as one fact', () => {
  const github = PutWebhookRequestSchema.parse({ verifier: 'github', secret: SECRET, subject: { type: 'repository', idPath: '$.repository.full_name' } });
  const mapping: WebhookMapping = { kind: github.kind, subject: github.subject };
  const push = { ref: 'refs/heads/main', repository: { full_name: 'acme/api', id: 42 } };

  it('takes the kind from X-GitHub-Event after github., the subject from idPath, the body as payload, the delivery id as key', () => {
    const fact = webhookDeliveryFact(delivery(mapping, { 'x-github-event': 'push', 'x-github-delivery': 'd-1' }, push, 'github'), '2026-12-04T00:00:00.000Z');
    expect(AcceptedFactSchema.parse(fact)).toEqual(fact);
    expect(fact).toMatchObject({
      workspace: 'acme',
      workspaceId: workspace.id,
      kind: 'github.push',
      subject: { type: 'repository', id: 'acme/api' },
      actor: { type: 'service', id: 'webhook:ci', name: 'ci' },
      payload: push,
      idempotencyKey: 'webhook:ci:d-1',
    });
  });

  it('normalizes a value to the kind grammar, or refuses it with WEBHOOK_DELIVERY_INVALID (kind)', () => {
    expect(kindPartOf(' Pull Request-Review ')).toBe('pull_request_review');
    const fromPath: WebhookMapping = { kind: { path: '$.action', prefix: 'ci.' }, subject: { type: 'build', idPath: '$.id' } };
    const kindOf = (action: unknown) => webhookDeliveryFact(delivery(fromPath, {}, { action, id: 7 }), 'x').kind;
    expect(kindOf('Build-Finished')).toBe('ci.build_finished');
    expect(kindOf('check_run.completed')).toBe('ci.check_run.completed');
    for (const bad of ['', 'a..b', 'é', 'x/y', 'a.', 3, null, ['a'], 'x'.repeat(300)]) {
      expect(() => kindOf(bad)).toThrow(expect.objectContaining({ code: 'WEBHOOK_DELIVERY_INVALID', data: expect.objectContaining({ field: 'kind' }) }));
    }
    expect(() => webhookDeliveryFact(delivery(mapping, { 'x-github-delivery': 'd' }, push, 'github'), 'x')).toThrow(expect.objectContaining({ data: expect.objectContaining({ field: 'kind' }) }));
  });

  it("refuses an audit trail kind: a sender never records the platform's own facts", () => {
    const fromPath: WebhookMapping = { kind: { path: '$.action' }, subject: { type: 'build', idPath: '$.id' } };
    for (const action of ['token.created', 'Member.Removed', 'webhook.deleted']) {
      expect(() => webhookDeliveryFact(delivery(fromPath, {}, { action, id: 7 }), 'x')).toThrow(
        expect.objectContaining({ code: 'WEBHOOK_DELIVERY_INVALID', message: expect.stringContaining('recorded by the platform only'), data: expect.objectContaining({ field: 'kind' }) }),
      );
    }
    const fixed: WebhookMapping = { kind: { prefix: 'secret.set' }, subject: { type: 'build', idPath: '$.id' } };
    expect(() => webhookDeliveryFact(delivery(fixed, {}, { id: 7 }), 'x')).toThrow(expect.objectContaining({ data: expect.objectContaining({ field: 'kind' }) }));
    expect(webhookDeliveryFact(delivery(fromPath, {}, { action: 'token.created.v2', id: 7 }), 'x').kind).toBe('token.created.v2');
  });

  it('takes a string or number subject id, refuses anything else (subject)', () => {
    const subjectOf = (id: unknown) => webhookDeliveryFact(delivery({ kind: { prefix: 'ci.done' }, subject: { type: 'build', idPath: '$.id' } }, {}, { id }), 'x').subject;
    expect(subjectOf(42)).toEqual({ type: 'build', id: '42' });
    expect(subjectOf('b-1')).toEqual({ type: 'build', id: 'b-1' });
    for (const bad of [undefined, '', null, true, { a: 1 }, [1], 'x'.repeat(257)]) {
      expect(() => subjectOf(bad)).toThrow(expect.objectContaining({ code: 'WEBHOOK_DELIVERY_INVALID', data: expect.objectContaining({ field: 'subject' }) }));
    }
  });

  it('keys a delivery by its header, or by the SHA-256 of the body without one; refuses an unusable id (deliveryId)', () => {
    const plain: WebhookMapping = { kind: { prefix: 'ci.done' }, subject: { type: 'build', idPath: '$.id' } };
    const body = { id: 1 };
    const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    expect(webhookDeliveryFact(delivery(plain, {}, body), 'x').idempotencyKey).toBe(`webhook:ci:sha256:${hash}`);
    const named = { ...plain, deliveryIdHeader: 'x-delivery' };
    expect(webhookDeliveryFact(delivery(named, { 'x-delivery': 'abc' }, body), 'x').idempotencyKey).toBe('webhook:ci:abc');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), 'ü']) {
      expect(() => webhookDeliveryFact(delivery(named, bad === undefined ? {} : { 'x-delivery': bad }, body), 'x')).toThrow(
        expect.objectContaining({ data: expect.objectContaining({ field: 'deliveryId' }) }),
      );
    }
  });

  it('needs a JSON object body within the payload limit', () => {
    const plain: WebhookMapping = { kind: { prefix: 'ci.done' }, subject: { type: 'build', idPath: '$[0]' } };
    expect(() => webhookDeliveryFact(delivery(plain, {}, ['a']), 'x')).toThrow(expect.objectContaining({ data: expect.objectContaining({ field: 'body' }) }));
    const big = { id: 'b', blob: 'x'.repeat(70_000) };
    expect(() => webhookDeliveryFact(delivery({ ...plain, subject: { type: 'build', idPath: '$.id' } }, {}, big), 'x')).toThrow(expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }));
  });
});

describe('issue 36: duplicate keys', () => {
  it('finds a key twice in one object, after unescaping, at any depth', () => {
    expect(duplicateKeyIn('{"a":1,"a":2}')).toEqual({ key: 'a', path: ['a'] });
    expect(duplicateKeyIn('{"a":1,"\\u0061":2}')).toEqual({ key: 'a', path: ['a'] });
    expect(duplicateKeyIn('{"x":[{"k":1},{"k":2,"q":"\\"k\\"","k":3}]}')).toEqual({ key: 'k', path: ['x', 1, 'k'] });
    expect(duplicateKeyIn('{"s":"{\\"a\\":1,\\"a\\":2}"}')).toBeUndefined();
    expect(duplicateKeyIn('{"a":{"b":1},"b":{"a":1}}')).toBeUndefined();
    expect(duplicateKeyIn('{"a\\\\":1,"a":2}')).toBeUndefined();
    const deep = '['.repeat(50_000) + '{"z":1,"z":2}' + ']'.repeat(50_000);
    expect(duplicateKeyIn(deep)?.key).toBe('z');
  });

  it('agrees with a parse that counts keys (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', '"', '\\'), fc.jsonValue({ maxDepth: 2 })), { maxLength: 6 }), (members) => {
        const text = `{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
        const keys = members.map(([key]) => key);
        expect(duplicateKeyIn(text) !== undefined).toBe(new Set(keys).size !== keys.length);
      }),
    );
  });
});
