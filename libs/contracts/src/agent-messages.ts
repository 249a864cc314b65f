import { z } from 'zod';

/**
 * `agent-message/v1` (docs/awareness.md, decision 0047): an advisory peer
 * note from one producer to whoever observes a thread. It is data, never an
 * instruction: `deliveryMode` is fixed to `shadow` and `canAuthorizeActions`
 * to `false`, so making notes active needs a new contract version and a new
 * decision. The canonical JSON Schema (`libs/contracts/schemas/agent-message-v1.schema.json`)
 * is generated from these schemas; a test keeps the file identical.
 */

/** The `schema` field's one value. */
export const AGENT_MESSAGE_SCHEMA = 'agent-message/v1';

/** Most characters (Unicode code points) of a note's content. */
export const MAX_AGENT_MESSAGE_CONTENT_CHARS = 4_000;
/** Most bytes of a posted envelope before it is looked at (larger ones are quarantined `oversized`). */
export const MAX_AGENT_MESSAGE_ENVELOPE_BYTES = 32 * 1024;
/** Longest life a producer may give a note (`expiresAt - createdAt`), and the tool's ceiling for `expiresInMs`: 7 days. */
export const MAX_AGENT_MESSAGE_TTL_MS = 7 * 24 * 3_600_000;
/** A tool-posted note's life when `expiresInMs` is not given: 1 hour. */
export const DEFAULT_AGENT_MESSAGE_TTL_MS = 3_600_000;

/** Counts code points, as JSON Schema's `maxLength` does (a JavaScript string's length counts UTF-16 units). */
const codePoints = (text: string) => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** Ids chosen by producers (`messageId`): 8–128 letters, digits and `._:-` (a UUID or ULID fits). */
export const AgentMessageIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/, 'a messageId has 8 to 128 letters, digits or ._:- and starts with a letter or digit');

/**
 * Thread and topic are names, not prose: 1–128 letters, digits and `._:/-`.
 * They are shown on the health views, so no free text (and no content) can ride in them.
 */
const NamePattern = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
export const AgentMessageThreadSchema = z.string().regex(NamePattern, 'a thread is 1 to 128 letters, digits or ._:/- starting with a letter or digit');
export const AgentMessageTopicSchema = z.string().regex(NamePattern, 'a topic is 1 to 128 letters, digits or ._:/- starting with a letter or digit');

/** A note's text: up to MAX_AGENT_MESSAGE_CONTENT_CHARS code points. Advisory data only. */
export const AgentMessageContentSchema = z
  .string()
  .min(1)
  .refine((text) => codePoints(text) <= MAX_AGENT_MESSAGE_CONTENT_CHARS, `content is at most ${MAX_AGENT_MESSAGE_CONTENT_CHARS} characters`)
  .meta({ maxLength: MAX_AGENT_MESSAGE_CONTENT_CHARS });

/** A UTC instant, `Z` only (offsets are refused so that expiry is evaluated in one clock). */
export const UtcInstantSchema = z.iso.datetime({ offset: false, local: false });

const PlatformIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/);

/** Who posted a note; always filled by the platform from the credential, never by the producer. */
export const AgentMessageSenderSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('agent'),
      /** The agent's id. */
      id: PlatformIdSchema,
      /** The run that posted it. */
      runId: PlatformIdSchema,
      /** The teammate session the run belongs to, when it is a teammate's. */
      session: PlatformIdSchema.optional(),
    })
    .strict(),
  z.object({ type: z.literal('member'), id: PlatformIdSchema }).strict(),
]);
export type AgentMessageSender = z.infer<typeof AgentMessageSenderSchema>;

/** The envelope's fields a producer writes (everything but `sender`). */
const producerFields = {
  schema: z.literal(AGENT_MESSAGE_SCHEMA),
  messageId: AgentMessageIdSchema,
  /** Sender-scoped, increased by the producer; a gap or regression is recorded, never refused. */
  senderSeq: z.number().int().min(0),
  thread: AgentMessageThreadSchema,
  createdAt: UtcInstantSchema,
  expiresAt: UtcInstantSchema,
  topic: AgentMessageTopicSchema,
  content: AgentMessageContentSchema,
  deliveryMode: z.literal('shadow'),
  canAuthorizeActions: z.literal(false),
};

/** A whole `agent-message/v1` envelope, as stored and as the canonical JSON Schema describes it. Unknown properties are refused. */
export const AgentMessageSchema = z.object({ ...producerFields, sender: AgentMessageSenderSchema }).strict();
export type AgentMessage = z.infer<typeof AgentMessageSchema>;

/** What `POST /agent-messages` takes: the envelope without `sender` (naming one is refused 400). */
export const AgentMessagePostSchema = z.object(producerFields).strict();
export type AgentMessagePost = z.infer<typeof AgentMessagePostSchema>;

/** Why a posted envelope was quarantined instead of observed. Stable codes. */
export const QuarantineReasonSchema = z.enum(['invalid', 'expired', 'oversized', 'duplicate_property', 'duplicate_message', 'secret_detected']);
export type QuarantineReason = z.infer<typeof QuarantineReasonSchema>;

/** What became of a post: observed (or a replay of one already observed), or quarantined with a reason. */
export const AgentMessageDispositionSchema = z.enum(['observed', 'replayed', 'quarantined']);
export type AgentMessageDisposition = z.infer<typeof AgentMessageDispositionSchema>;

/** The 202 answer of `POST /agent-messages` and of the `post_peer_note` tool. */
export const AgentMessagePostResponseSchema = z
  .object({
    /** The envelope's messageId; null when none could be read from a quarantined body. */
    messageId: AgentMessageIdSchema.nullable(),
    disposition: AgentMessageDispositionSchema,
    reason: QuarantineReasonSchema.optional(),
    /** The observation's cursor position, when observed or replayed. */
    seq: z.number().int().min(1).optional(),
  })
  .strict();
export type AgentMessagePostResponse = z.infer<typeof AgentMessagePostResponseSchema>;

/** Input of the platform tool `post_peer_note`: the platform fills identity, ids, times and sequence. */
export const PostPeerNoteInputSchema = z
  .object({
    thread: AgentMessageThreadSchema,
    topic: AgentMessageTopicSchema,
    content: AgentMessageContentSchema,
    /** How long the note stays current. @defaultValue 1 hour */
    expiresInMs: z.number().int().min(1_000).max(MAX_AGENT_MESSAGE_TTL_MS).optional(),
  })
  .strict();
export type PostPeerNoteInput = z.infer<typeof PostPeerNoteInputSchema>;

/** How a note's senderSeq relates to the same sender's previous observed note: metadata, never a refusal. */
export const SenderSequenceSchema = z.enum(['first', 'next', 'gap', 'regression', 'repeat']);
export type SenderSequence = z.infer<typeof SenderSequenceSchema>;

/** One observation on the read API and the SSE projection: delivery metadata and the content's hash, never its text. */
export const AgentMessageObservationSchema = z
  .object({
    seq: z.number().int().min(1),
    messageId: AgentMessageIdSchema,
    sender: AgentMessageSenderSchema,
    senderSeq: z.number().int().min(0),
    /** The same sender's previous senderSeq, when there was one. */
    previousSenderSeq: z.number().int().min(0).nullable(),
    sequence: SenderSequenceSchema,
    thread: AgentMessageThreadSchema,
    topic: AgentMessageTopicSchema,
    createdAt: z.string(),
    expiresAt: z.string(),
    receivedAt: z.string(),
    observedAt: z.string(),
    contentSha256: z.string().regex(/^[0-9a-f]{64}$/),
    contentChars: z.number().int().min(0),
    /** How many posts carried this envelope (1 + identical replays). */
    deliveries: z.number().int().min(1),
  })
  .strict();
export type AgentMessageObservation = z.infer<typeof AgentMessageObservationSchema>;

/** One quarantined post: bounded metadata only, never the body or its content. */
export const QuarantinedAgentMessageSchema = z
  .object({
    id: z.string(),
    reason: QuarantineReasonSchema,
    /** The envelope's messageId when it was readable and well-formed. */
    messageId: AgentMessageIdSchema.nullable(),
    sender: AgentMessageSenderSchema,
    bodyBytes: z.number().int().min(0),
    contentChars: z.number().int().min(0).nullable(),
    /** SHA-256 of the posted body's bytes. */
    bodySha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** zod issue codes (at most 5) for `invalid`; never the values. */
    issues: z.array(z.string().max(64)).max(5),
    /** Posts of this same body by this sender (a retried post is counted, not recorded twice). */
    deliveries: z.number().int().min(1),
    receivedAt: z.string(),
  })
  .strict();
export type QuarantinedAgentMessage = z.infer<typeof QuarantinedAgentMessageSchema>;

/** Most observations or quarantine records in one page. */
export const MAX_AGENT_MESSAGE_PAGE = 500;

/** `GET /agent-messages?since=<seq>&limit=` (since=0 reads from the start). */
export const ListAgentMessagesQuerySchema = z
  .object({
    since: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(MAX_AGENT_MESSAGE_PAGE).default(100),
  })
  .strict();

/** `GET /agent-messages/quarantine?limit=&before=` (newest first). */
export const ListQuarantineQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(MAX_AGENT_MESSAGE_PAGE).default(100),
  })
  .strict();

/** `GET /agent-messages/stream?since=` (or `Last-Event-ID`). */
export const AgentMessageStreamQuerySchema = z.object({ since: z.coerce.number().int().min(0).optional(), ticket: z.string().optional() }).strict();

/** One page of observations; `next` is the cursor to pass as `since`. */
export const ListAgentMessagesResponseSchema = z.object({ observations: z.array(AgentMessageObservationSchema), next: z.number().int().min(0) }).strict();

/** `GET /agent-messages/quarantine`: newest first. */
export const ListQuarantineResponseSchema = z.object({ quarantined: z.array(QuarantinedAgentMessageSchema) }).strict();

/** `GET /agent-messages/health`: thread activity and delivery health, without content. */
export const AgentMessageHealthSchema = z
  .object({
    threads: z.array(
      z
        .object({
          thread: AgentMessageThreadSchema,
          observations: z.number().int(),
          senders: z.number().int(),
          gaps: z.number().int(),
          /** Regressions and repeats of a sender's seq. */
          regressions: z.number().int(),
          lastObservedAt: z.string(),
        })
        .strict(),
    ),
    quarantine: z.array(z.object({ reason: QuarantineReasonSchema, count: z.number().int() }).strict()),
    totals: z
      .object({
        observations: z.number().int(),
        /** Posts that carried an observed envelope; `deliveries - observations` are duplicate deliveries (replays). */
        deliveries: z.number().int(),
        gaps: z.number().int(),
        regressions: z.number().int(),
        quarantined: z.number().int(),
        /** The workspace's newest observation seq (the cursor's end). */
        lastSeq: z.number().int(),
      })
      .strict(),
  })
  .strict();
export type AgentMessageHealth = z.infer<typeof AgentMessageHealthSchema>;

/** `GET /agent-messages/{messageId}/content`: one note's text, asked for explicitly by a member. */
export const AgentMessageContentResponseSchema = z
  .object({ messageId: AgentMessageIdSchema, contentSha256: z.string(), content: z.string(), untrusted: z.literal(true) })
  .strict();

/** Per-agent awareness (pilot only): `shadow` injects nothing (also the default); `digest` surfaces a bounded summary at step boundaries. */
export const AwarenessModeSchema = z.enum(['shadow', 'digest']);
export type AwarenessMode = z.infer<typeof AwarenessModeSchema>;

/** The canonical JSON Schema of an `agent-message/v1` envelope, generated from AgentMessageSchema. */
export function agentMessageJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(AgentMessageSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { $schema: schema.$schema, $id: 'https://switchyard.dev/schemas/agent-message-v1.schema.json', title: AGENT_MESSAGE_SCHEMA, ...schema };
}
