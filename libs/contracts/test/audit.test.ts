import {
  AGENT_FACT_KINDS,
  AGENT_TAG_FACT_KINDS,
  AUDIT_FACT_KINDS,
  AuditQuerySchema,
  COLLABORATOR_FACT_KINDS,
  WEBHOOK_FACT_KINDS,
  isAuditKind,
  KindSchema,
  PostEventBatchRequestSchema,
  PostEventRequestSchema,
  WORKSPACE_FACT_KINDS,
} from '../src/index';

/**
 * The audit kinds are spelled as literals (their module imports nothing, so
 * the fact schemas can refuse them without an import cycle): these tests tie
 * them to the families' own constants, and show a producer cannot post one.
 */
describe('audit kinds', () => {
  it('hold every agent registry and tag kind, the collaborator, settings and webhook kinds, each a valid kind, once', () => {
    for (const kind of [...Object.values(AGENT_FACT_KINDS), ...Object.values(AGENT_TAG_FACT_KINDS), ...Object.values(COLLABORATOR_FACT_KINDS), ...Object.values(WEBHOOK_FACT_KINDS), WORKSPACE_FACT_KINDS.settingsChanged]) {
      expect(AUDIT_FACT_KINDS).toContain(kind);
    }
    for (const kind of AUDIT_FACT_KINDS) expect(KindSchema.safeParse(kind).success).toBe(true);
    expect(new Set(AUDIT_FACT_KINDS).size).toBe(AUDIT_FACT_KINDS.length);
    expect(AUDIT_FACT_KINDS.some((kind) => kind.startsWith('agent.run.'))).toBe(false);
  });

  it('are refused from producers, one by one and in a batch, naming the kind', () => {
    const subject = { type: 't', id: '1' };
    for (const kind of AUDIT_FACT_KINDS) {
      const refused = PostEventRequestSchema.safeParse({ kind, subject });
      expect(refused.success).toBe(false);
      expect(refused.error!.issues[0]!.path).toEqual(['kind']);
    }
    const batch = PostEventBatchRequestSchema.safeParse({ events: [{ kind: 'build.failed', subject }, { kind: 'token.created', subject }] });
    expect(batch.error!.issues.map((issue) => issue.path)).toEqual([['events', 1, 'kind']]);
    // A kind that merely looks like one is the producer's own.
    for (const kind of ['token.created.v2', 'tokens.created', 'secret', 'agent.run.completed']) {
      expect(isAuditKind(kind)).toBe(false);
      expect(PostEventRequestSchema.safeParse({ kind, subject }).success).toBe(true);
    }
  });
});

describe('GET /audit query', () => {
  it('takes an actor id, a kind glob, a before seq and a limit up to 200', () => {
    expect(AuditQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(AuditQuerySchema.parse({ actor: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', kind: 'token.*', before: '42', limit: '200' })).toEqual({
      actor: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
      kind: 'token.*',
      before: 42,
      limit: 200,
    });
  });

  it.each([
    [{ actor: 'alice' }],
    [{ actor: '' }],
    [{ kind: 'Token.*' }],
    [{ kind: 'token..created' }],
    [{ before: '0' }],
    [{ before: '-3' }],
    [{ before: '1.5' }],
    [{ before: 'x' }],
    [{ limit: '0' }],
    [{ limit: '201' }],
    [{ limit: ['1', '2'] }],
    [{ after: '3' }],
  ])('refuses %j', (query) => {
    expect(AuditQuerySchema.safeParse(query).success).toBe(false);
  });
});
