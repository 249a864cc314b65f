import { z } from 'zod';
import { isAuditKind } from './audit-kinds';
import { JsonValueSchema } from './json-value';

/** Largest serialized `payload` a fact may carry. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** Most facts in one `events:batch` request. */
export const MAX_BATCH_SIZE = 500;

/** Fact kinds: dot-separated lowercase segments, e.g. `scorecard.completed`. */
export const KIND_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;

export const KindSchema = z.string().max(200).regex(KIND_PATTERN, 'kind must match ^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$');

/**
 * A kind glob over dot-separated segments: `*` is exactly one segment, `**`
 * any number of segments (including none), e.g. `scorecard.*`, `*.failed`, `**`.
 */
export const KindGlobSchema = z
  .string()
  .max(200)
  .regex(/^(\*\*|\*|[a-z0-9_]+)(\.(\*\*|\*|[a-z0-9_]+))*$/, 'kind glob segments are lowercase words, * or **');

/** Workspace slugs: the NAME given at creation, used in every REST path. */
export const WorkspaceSlugSchema = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'slug is lowercase letters, digits and hyphens');

/** Fact ids: UUIDv7, so they sort by time. */
export const FactIdSchema = z.uuid();

export const SubjectSchema = z.strictObject({
  type: z.string().min(1).max(64).regex(/^[a-z][a-z0-9_.-]*$/, 'subject.type is lowercase'),
  id: z.string().min(1).max(256),
});
export type Subject = z.infer<typeof SubjectSchema>;

/**
 * Who did the thing a fact records. As a fact's `actor` it is set by the
 * platform: `member` (the user id of the person's token that posted it),
 * `agent` (an agent token's agent), `user` or `system` for the facts the
 * platform records itself. As `statedActor` it is the producer's own claim.
 */
export const ActorSchema = z.strictObject({
  type: z.enum(['member', 'user', 'agent', 'service', 'system']),
  id: z.string().min(1).max(256),
  name: z.string().max(256).optional(),
});
export type Actor = z.infer<typeof ActorSchema>;

/** Set only by the platform for facts a run caused; never accepted from producers. */
export const CausedBySchema = z.strictObject({
  runId: z.string().min(1).max(64),
  agentId: z.string().min(1).max(64),
  depth: z.number().int().min(0).max(1000),
});
export type CausedBy = z.infer<typeof CausedBySchema>;

export const PayloadSchema = z
  .record(z.string(), JsonValueSchema)
  .refine((p) => Buffer.byteLength(JSON.stringify(p), 'utf8') <= MAX_PAYLOAD_BYTES, {
    message: `payload is larger than ${MAX_PAYLOAD_BYTES} bytes serialized`,
  });

export const IdempotencyKeySchema = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'idempotencyKey is printable ASCII');

/**
 * The body of `POST /v1/workspaces/{ws}/events`: what a producer states.
 * `actor` is refused: the platform states who posted, from the token
 * (decision 0018). A producer's own claim of who did it goes in `statedActor`.
 */
export const PostEventRequestSchema = z.strictObject({
  /** Any kind but the audit trail's, which only the platform records (docs/audit.md). */
  kind: KindSchema.refine((kind) => !isAuditKind(kind), { message: 'this kind is recorded by the platform only (the audit trail)' }),
  subject: SubjectSchema,
  actor: z.never({ error: 'actor is set by the platform from the token; put a claim of who did it in statedActor' }).optional(),
  /** Who the producer says did it: kept as stated, never used as attribution. */
  statedActor: ActorSchema.optional(),
  payload: PayloadSchema.default({}),
  idempotencyKey: IdempotencyKeySchema.optional(),
});
export type PostEventRequest = z.infer<typeof PostEventRequestSchema>;

/** The body of `POST /v1/workspaces/{ws}/events:batch`. */
export const PostEventBatchRequestSchema = z.strictObject({
  events: z.array(PostEventRequestSchema).min(1).max(MAX_BATCH_SIZE),
});
export type PostEventBatchRequest = z.infer<typeof PostEventBatchRequestSchema>;

/** `202` (accepted now) or `200` (the idempotencyKey was seen: the original id). */
export const PostEventResponseSchema = z.strictObject({ id: FactIdSchema });

export const PostEventBatchResponseSchema = z.strictObject({
  ids: z.array(FactIdSchema),
  /** Per input, in order: whether it was accepted now or resolved to an earlier fact. */
  results: z.array(z.strictObject({ id: FactIdSchema, status: z.enum(['accepted', 'duplicate']) })),
});

/** A stored fact: immutable, with its per-workspace `seq`. */
export const FactSchema = z.strictObject({
  id: FactIdSchema,
  /** Dense per workspace, commit-ordered: a safe cursor for `after=`. */
  seq: z.number().int().positive(),
  workspace: WorkspaceSlugSchema,
  kind: KindSchema,
  subject: SubjectSchema,
  /** Who posted it, set by the platform (the token's member or agent; `system` or `user` for its own facts). */
  actor: ActorSchema.optional(),
  /** Who the producer says did it (its claim, from the request). */
  statedActor: ActorSchema.optional(),
  payload: z.record(z.string(), JsonValueSchema),
  causedBy: CausedBySchema.optional(),
  idempotencyKey: IdempotencyKeySchema.optional(),
  /** When the gateway accepted it (ISO 8601). */
  ts: z.iso.datetime(),
});
export type Fact = z.infer<typeof FactSchema>;

/** A fact as accepted, before the event-log assigned its `seq`. */
export const AcceptedFactSchema = FactSchema.omit({ seq: true }).extend({ workspaceId: z.uuid() });
export type AcceptedFact = z.infer<typeof AcceptedFactSchema>;

/** `GET /v1/workspaces/{ws}/events` query. */
export const ListEventsQuerySchema = z.strictObject({
  /** Only facts with a greater seq. */
  after: z.coerce.number().int().min(0).default(0),
  kind: KindGlobSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** `asc` (the default): oldest first, paged forward with `after`; `desc`: newest first, paged back with `before`. */
  order: z.enum(['asc', 'desc']).default('asc'),
  /** Only facts with a smaller seq (paging back with `order=desc`: the previous page's nextCursor). */
  before: z.coerce.number().int().min(1).optional(),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuerySchema>;

export const ListEventsResponseSchema = z.strictObject({
  events: z.array(FactSchema),
  /**
   * The last seq of the page: pass it as `after` for the next page (`asc`; `after` itself when empty)
   * or as `before` for the previous one (`desc`; when empty, `before` or 0: there is nothing older).
   */
  nextCursor: z.number().int().min(0),
});
