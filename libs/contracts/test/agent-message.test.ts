import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { AgentMessagePostSchema, AgentMessageSchema, agentMessageJsonSchema, MAX_AGENT_MESSAGE_CONTENT_CHARS } from '../src';

const FILE = join(__dirname, '..', 'schemas', 'agent-message-v1.schema.json');
const canonical = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>;

/** A standard JSON Schema 2020-12 validator over the canonical file, as another repository would load it. */
function validatorOfFile() {
  const ajv = new Ajv2020({ strict: true, allErrors: false });
  addFormats(ajv);
  return ajv.compile(canonical);
}

const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,20}$/);
const instant = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString());
const sender = fc.oneof(
  fc.record({ type: fc.constant('member' as const), id: fc.uuid() }),
  fc.record({ type: fc.constant('agent' as const), id: fc.uuid(), runId: fc.uuid(), session: fc.option(fc.uuid(), { nil: undefined }) }, { requiredKeys: ['type', 'id', 'runId'] }),
);
const content = fc.oneof(
  fc.string({ minLength: 1, maxLength: 200, unit: 'binary' }),
  fc.integer({ min: MAX_AGENT_MESSAGE_CONTENT_CHARS - 2, max: MAX_AGENT_MESSAGE_CONTENT_CHARS + 2 }).map((n) => '😀'.repeat(n)),
  fc.integer({ min: MAX_AGENT_MESSAGE_CONTENT_CHARS - 2, max: MAX_AGENT_MESSAGE_CONTENT_CHARS + 2 }).map((n) => 'a'.repeat(n)),
);
const valid = fc.record({
  schema: fc.constant('agent-message/v1'),
  messageId: fc.uuid(),
  senderSeq: fc.nat(),
  thread: name,
  createdAt: instant,
  expiresAt: instant,
  topic: name,
  content,
  deliveryMode: fc.constant('shadow'),
  canAuthorizeActions: fc.constant(false),
  sender,
});

/** One defect applied to a valid envelope: each kind a producer could send. */
const defect = fc.oneof(
  fc.constantFrom('schema', 'messageId', 'senderSeq', 'thread', 'createdAt', 'expiresAt', 'topic', 'content', 'deliveryMode', 'canAuthorizeActions', 'sender').map((key) => (e: Record<string, unknown>) => {
    delete e[key];
  }),
  fc.tuple(fc.constantFrom('schema', 'messageId', 'senderSeq', 'thread', 'createdAt', 'topic', 'content', 'deliveryMode', 'canAuthorizeActions', 'sender'), fc.anything({ maxDepth: 1 })).map(
    ([key, value]) =>
      (e: Record<string, unknown>) => {
        e[key] = value;
      },
  ),
  fc.string({ minLength: 1, maxLength: 8 }).map((key) => (e: Record<string, unknown>) => {
    e[`x${key}`] = 1;
  }),
  fc.constantFrom('2026-01-01T00:00:00+01:00', '2026-02-30T00:00:00Z', '2026-01-01 00:00:00Z', '2026-01-01T00:00:00').map((at) => (e: Record<string, unknown>) => {
    e.createdAt = at;
  }),
  fc.constantFrom(-1, 1.5, 2 ** 53).map((seq) => (e: Record<string, unknown>) => {
    e.senderSeq = seq;
  }),
  fc.constant((e: Record<string, unknown>) => {
    e.sender = { ...(e.sender as object), extra: true };
  }),
);
const envelope = fc.oneof(
  valid,
  fc.tuple(valid, defect).map(([e, apply]) => {
    const copy: Record<string, unknown> = { ...e };
    apply(copy);
    return copy;
  }),
);

/** The agent-message/v1 contract (issue 34 §1): one zod schema, one canonical JSON Schema file, the same answers. */
describe('agent-message/v1', () => {
  it('the canonical JSON Schema file is exactly what the zod schema generates (npm run contracts:schemas rewrites it)', () => {
    expect(readFileSync(FILE, 'utf8')).toBe(`${JSON.stringify(agentMessageJsonSchema(), null, 2)}\n`);
  });

  it('the file and the zod schema accept and reject the same 200 generated envelopes', () => {
    const validate = validatorOfFile();
    let accepted = 0;
    fc.assert(
      fc.property(envelope, (e) => {
        const byZod = AgentMessageSchema.safeParse(e).success;
        expect(validate(e)).toBe(byZod);
        if (byZod) accepted++;
      }),
      { numRuns: 200, seed: 34 },
    );
    // Both halves are exercised: neither everything accepted nor everything refused.
    expect(accepted).toBeGreaterThan(20);
    expect(accepted).toBeLessThan(180);
  });

  it('a producer posts the envelope without sender; unknown properties are refused', () => {
    const base = { schema: 'agent-message/v1', messageId: 'msg-00000001', senderSeq: 1, thread: 't', createdAt: '2026-12-05T00:00:00Z', expiresAt: '2026-12-05T01:00:00Z', topic: 'x', content: 'c', deliveryMode: 'shadow', canAuthorizeActions: false };
    expect(AgentMessagePostSchema.safeParse(base).success).toBe(true);
    expect(AgentMessagePostSchema.safeParse({ ...base, sender: { type: 'member', id: 'u' } }).success).toBe(false);
    expect(AgentMessagePostSchema.safeParse({ ...base, canAuthorizeActions: true }).success).toBe(false);
    expect(AgentMessagePostSchema.safeParse({ ...base, deliveryMode: 'active' }).success).toBe(false);
  });
});
