import { createHash } from 'node:crypto';
import {
  AgentMessageIdSchema,
  AgentMessagePostSchema,
  MAX_AGENT_MESSAGE_CONTENT_CHARS,
  MAX_AGENT_MESSAGE_ENVELOPE_BYTES,
  MAX_AGENT_MESSAGE_TTL_MS,
  type AgentMessagePost,
  type QuarantineReason,
} from '@switchyard/contracts';
import { credentialShapeIn } from './credential-patterns';
import { duplicateKeyIn } from './json-duplicate-keys';
import { checkStorableJson } from './storable-json';

/** SHA-256 of text or bytes, lowercase hex. */
export const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** What a quarantine record keeps of a refused envelope: bounded metadata, never its body or content. */
export interface QuarantineFacts {
  reason: QuarantineReason;
  messageId: string | null;
  bodyBytes: number;
  contentChars: number | null;
  bodySha256: string;
  /** zod issue codes (at most 5), or the name of the rule; never values. */
  issues: string[];
}

/** The outcome of screening one posted envelope before anything is observed. */
export type ScreenResult =
  | { ok: true; post: AgentMessagePost; contentSha256: string; contentChars: number; bodySha256: string; bodyBytes: number }
  | { ok: false; quarantine: QuarantineFacts }
  /** The envelope names its own sender: a refusal (400), not a quarantine. */
  | { ok: false; senderNamed: true };

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const codePoints = (text: string) => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Screens a posted body (its bytes, as sent) in the order decision 0047 gives:
 * size first (no parse of an oversized body), then JSON, a named `sender`
 * (refused), duplicate properties on the raw text (a standard parse hides them),
 * content size, the schema, expiry against `receivedAt`, and credential shapes.
 * Pure: the store decides duplicates of messageId.
 */
export function screenAgentMessageBytes(raw: Uint8Array, receivedAt: Date): ScreenResult {
  const bodySha256 = sha256Hex(raw);
  const facts = (reason: QuarantineReason, rest: Partial<QuarantineFacts> = {}): ScreenResult => ({
    ok: false,
    quarantine: { reason, messageId: null, bodyBytes: raw.byteLength, contentChars: null, bodySha256, issues: [], ...rest },
  });
  if (raw.byteLength > MAX_AGENT_MESSAGE_ENVELOPE_BYTES) return facts('oversized', { issues: ['envelope_too_large'] });
  let text: string;
  let body: unknown;
  try {
    text = UTF8.decode(raw);
    body = JSON.parse(text);
  } catch {
    return facts('invalid', { issues: ['malformed_json'] });
  }
  if (isObject(body) && Object.hasOwn(body, 'sender')) return { ok: false, senderNamed: true };
  if (duplicateKeyIn(text)) return facts('duplicate_property', { messageId: readableId(body), issues: ['duplicate_key'] });
  return screenAgentMessage(body, receivedAt, { bodySha256, bodyBytes: raw.byteLength });
}

/**
 * Screens an envelope already parsed (the `post_peer_note` tool builds one):
 * everything screenAgentMessageBytes checks after the parse.
 */
export function screenAgentMessage(body: unknown, receivedAt: Date, bodyFacts: { bodySha256: string; bodyBytes: number }): ScreenResult {
  const messageId = readableId(body);
  const content = isObject(body) && typeof body.content === 'string' ? body.content : undefined;
  const contentChars = content === undefined ? null : codePoints(content);
  const facts = (reason: QuarantineReason, issues: string[]): ScreenResult => ({ ok: false, quarantine: { reason, messageId, contentChars, issues, ...bodyFacts } });
  if (isObject(body) && Object.hasOwn(body, 'sender')) return { ok: false, senderNamed: true };
  if (contentChars !== null && contentChars > MAX_AGENT_MESSAGE_CONTENT_CHARS) return facts('oversized', ['content_too_large']);
  if (!checkStorableJson(body, 8).ok) return facts('invalid', ['unstorable']);
  const parsed = AgentMessagePostSchema.safeParse(body);
  if (!parsed.success) return facts('invalid', [...new Set(parsed.error.issues.map((issue) => issue.code))].slice(0, 5));
  const post = parsed.data;
  const created = Date.parse(post.createdAt);
  const expires = Date.parse(post.expiresAt);
  if (expires <= created) return facts('invalid', ['expires_before_created']);
  if (expires - created > MAX_AGENT_MESSAGE_TTL_MS) return facts('invalid', ['ttl_too_long']);
  if (expires <= receivedAt.getTime()) return facts('expired', ['expired']);
  const shape = credentialShapeIn(post.content) ?? credentialShapeIn(post.topic) ?? credentialShapeIn(post.thread);
  if (shape) return facts('secret_detected', [shape]);
  return { ok: true, post, contentSha256: sha256Hex(post.content), contentChars: contentChars ?? 0, ...bodyFacts };
}

/** The envelope's messageId when it is there and well-formed (a quarantine record may name it); null otherwise. */
function readableId(body: unknown): string | null {
  const id = isObject(body) ? body.messageId : undefined;
  return AgentMessageIdSchema.safeParse(id).success ? (id as string) : null;
}
