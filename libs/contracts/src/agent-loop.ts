import { z } from 'zod';
import { JsonValueSchema } from './json-value';
import { KindSchema, SubjectSchema } from './facts';

/** Names of workspace secrets: referenced from agent specs (`apiKeySecret`, `{secret: name}` headers). */
export const SecretNameSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'secret names start with a letter and use letters, digits, _ . -');

/** A reference to a workspace secret where a spec would otherwise hold a credential. */
export const SecretRefSchema = z.strictObject({ secret: SecretNameSchema });
export type SecretRef = z.infer<typeof SecretRefSchema>;

/** Largest secret value: model keys and bearer tokens, not files. */
export const MAX_SECRET_BYTES = 8 * 1024;

/** `PUT /v1/workspaces/{ws}/secrets/{name}` body (admin only; the value is never shown again). */
export const PutSecretRequestSchema = z.strictObject({
  value: z
    .string()
    .min(1)
    .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_SECRET_BYTES, { message: `value is larger than ${MAX_SECRET_BYTES} bytes` }),
});
export type PutSecretRequest = z.infer<typeof PutSecretRequestSchema>;

/** A secret as listed: its name and dates, never its value. */
export const SecretInfoSchema = z.strictObject({
  name: SecretNameSchema,
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type SecretInfo = z.infer<typeof SecretInfoSchema>;
export const ListSecretsResponseSchema = z.strictObject({ secrets: z.array(SecretInfoSchema) });

/** Largest message a person (or a teammate) puts in a session's mailbox. */
export const MAX_MAILBOX_MESSAGE_CHARS = 32_000;

/** Who a mailbox envelope is from: how the loop attributes it to the model. */
export const MailboxSenderSchema = z.discriminatedUnion('type', [
  /** A person: their text reaches the model verbatim. */
  z.strictObject({ type: z.literal('user'), userId: z.uuid(), name: z.string().max(256).optional() }),
  /** Another agent, as envelopes written before `agent` existed: rendered as `[message from teammate <name>]`. */
  z.strictObject({ type: z.literal('teammate'), agentId: z.uuid(), name: z.string().max(256) }),
  /** A fact delivered to the session: rendered as `[event <kind> — <subject>]`. */
  z.strictObject({ type: z.literal('event'), eventId: z.uuid(), kind: KindSchema, subject: SubjectSchema }),
  /**
   * Another agent's run (send_message): rendered as `[message from teammate <name>]`;
   * `teammate` is the sender's teammate name when it is one, `runId` the run that sent it.
   */
  z.strictObject({
    type: z.literal('agent'),
    agentId: z.uuid(),
    name: z.string().max(256),
    teammate: z.string().max(64).optional(),
    runId: z.uuid().optional(),
  }),
  /** The platform itself (a notice it delivers): rendered as `[system notice]`. */
  z.strictObject({ type: z.literal('system'), reason: z.string().max(64) }),
]);
export type MailboxSender = z.infer<typeof MailboxSenderSchema>;

/**
 * One entry of the Redis stream `mailbox:{sessionId}` (field `envelope`, JSON).
 *
 * schemaVersion changelog:
 * - 1: first version.
 */
export const MailboxEnvelopeSchema = z.strictObject({
  schemaVersion: z.literal(1),
  id: z.uuid(),
  sessionId: z.uuid(),
  from: MailboxSenderSchema,
  content: z.string().max(MAX_MAILBOX_MESSAGE_CHARS),
  sentAt: z.iso.datetime(),
});
export type MailboxEnvelope = z.infer<typeof MailboxEnvelopeSchema>;

/** `POST /v1/workspaces/{ws}/sessions/{id}/messages` body. */
export const PostSessionMessageRequestSchema = z.strictObject({
  content: z.string().min(1).max(MAX_MAILBOX_MESSAGE_CHARS),
});
export type PostSessionMessageRequest = z.infer<typeof PostSessionMessageRequestSchema>;
export const PostSessionMessageResponseSchema = z.strictObject({ id: z.uuid() });

/** What a transcript entry records (append-only, per session, in `seq` order). */
export const TranscriptEntryTypeSchema = z.enum([
  /** The system prompt (the agent's instructions). */
  'system',
  /** A user-role message: the task with the fact, or a drained mailbox envelope. */
  'user',
  /** A model answer: its text and the tool calls it asked for, with usage and cost. */
  'assistant',
  /** One tool call's outcome: name, arguments, result or error, duration. */
  'tool',
  /** Something the platform tells the reader (a server that failed to connect, a budget stop). */
  'notice',
  /** A teammate's earlier turns summarized (decision 0052): the summary and the range of entries it replaces in what the model is sent. */
  'compaction',
]);
export type TranscriptEntryType = z.infer<typeof TranscriptEntryTypeSchema>;

/** A transcript entry as the API shows it; `content` is shaped by `type` (docs/decisions/0011). */
export const TranscriptEntrySchema = z.strictObject({
  seq: z.number().int().min(1),
  runId: z.uuid(),
  type: TranscriptEntryTypeSchema,
  content: z.record(z.string(), JsonValueSchema),
  at: z.iso.datetime(),
});
export type TranscriptEntry = z.infer<typeof TranscriptEntrySchema>;

/** `GET /v1/workspaces/{ws}/runs/{id}/transcript` query: pages by `seq`. */
export const TranscriptQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const TranscriptResponseSchema = z.strictObject({
  entries: z.array(TranscriptEntrySchema),
  /** The `after` of the next page; null at the end. */
  next: z.number().int().nullable(),
});
