import { createHash } from 'node:crypto';
import {
  AppError,
  ErrorCode,
  isAuditKind,
  KindSchema,
  MAX_PAYLOAD_BYTES,
  MAX_WEBHOOK_DELIVERY_ID_CHARS,
  type AcceptedFact,
  type Actor,
  type WebhookDeliveryField,
  type WebhookMapping,
  type WebhookVerifier,
} from '@switchyard/contracts';
import { newId } from './ids';
import { resolveJsonPath } from './json-path';
import { GITHUB_DELIVERY_HEADER } from './webhook-signature';

/** A verified delivery, as the webhook's mapping reads it. */
export interface WebhookDelivery {
  workspace: { id: string; slug: string };
  /** The webhook's name. */
  name: string;
  verifier: WebhookVerifier;
  mapping: WebhookMapping;
  /** A request header's one value by lowercase name; undefined when absent or sent more than once. */
  header: (name: string) => string | undefined;
  /** The parsed body. */
  body: unknown;
  /** The body's bytes (the delivery id of a webhook without a delivery id header is their SHA-256). */
  raw: Uint8Array;
}

const DELIVERY_ID = new RegExp(`^[\\x21-\\x7e]{1,${MAX_WEBHOOK_DELIVERY_ID_CHARS}}$`);
const MAX_SUBJECT_ID_CHARS = 256;
const QUOTED_MAX_CHARS = 100;

const invalid = (field: WebhookDeliveryField, reason: string) =>
  new AppError(ErrorCode.WEBHOOK_DELIVERY_INVALID, `the delivery's ${field} cannot be used: ${reason}`, { field, reason });

/** A value as an error quotes it: JSON, cut short (it comes from the sender). */
const quoted = (value: unknown) => {
  const json = JSON.stringify(value) ?? 'nothing';
  return json.length <= QUOTED_MAX_CHARS ? json : `${json.slice(0, QUOTED_MAX_CHARS)}…`;
};

/** The actor of a webhook's facts: the webhook, by name. */
export function webhookActor(name: string): Actor {
  return { type: 'service', id: `webhook:${name}`, name };
}

/**
 * A header's or a body field's value as the end of a fact kind: trimmed,
 * lowercased, every run of spaces or hyphens one underscore
 * (`Pull Request-Review` → `pull_request_review`). Whatever still does not
 * fit the kind grammar is refused, not rewritten further.
 */
export function kindPartOf(value: string): string {
  return value.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

/** The delivery's kind; an audit trail kind is the platform's own, never a sender's (decision 0040). */
function kindOf(delivery: WebhookDelivery): string {
  const kind = mappedKindOf(delivery);
  if (isAuditKind(kind)) throw invalid('kind', `${quoted(kind)} is recorded by the platform only (the audit trail)`);
  return kind;
}

function mappedKindOf(delivery: WebhookDelivery): string {
  const { header, path, prefix = '' } = delivery.mapping.kind;
  if (header === undefined && path === undefined) return prefix;
  const value = header !== undefined ? delivery.header(header) : resolveJsonPath(delivery.body, path!);
  const source = header !== undefined ? `header ${header}` : `body path ${path}`;
  if (typeof value !== 'string') throw invalid('kind', `${source} is ${value === undefined ? 'missing (or repeated)' : `not a string: ${quoted(value)}`}`);
  const kind = prefix + kindPartOf(value);
  if (!KindSchema.safeParse(kind).success) throw invalid('kind', `${quoted(kind)} (from ${source}) is not a fact kind: ^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$, at most 200 characters`);
  return kind;
}

function subjectIdOf(delivery: WebhookDelivery): string {
  const { idPath } = delivery.mapping.subject;
  const value = resolveJsonPath(delivery.body, idPath);
  const id = typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
  if (id === undefined || id.length === 0 || id.length > MAX_SUBJECT_ID_CHARS) {
    throw invalid('subject', `body path ${idPath} must hold a string of 1 to ${MAX_SUBJECT_ID_CHARS} characters or a number, not ${quoted(value)}`);
  }
  return id;
}

/**
 * The delivery's id: GitHub's `X-GitHub-Delivery`; the configured delivery
 * id header's value; or, for a webhook without one, `sha256:` and the hex
 * SHA-256 of the body's bytes (a replayed body is then the same delivery).
 */
export function deliveryIdOf(delivery: Pick<WebhookDelivery, 'verifier' | 'mapping' | 'header' | 'raw'>): string {
  const header = delivery.verifier === 'github' ? GITHUB_DELIVERY_HEADER : delivery.mapping.deliveryIdHeader;
  if (header === undefined) return `sha256:${createHash('sha256').update(delivery.raw).digest('hex')}`;
  const id = delivery.header(header);
  if (id === undefined || !DELIVERY_ID.test(id)) {
    throw invalid('deliveryId', `header ${header} must be sent once with 1 to ${MAX_WEBHOOK_DELIVERY_ID_CHARS} printable ASCII characters`);
  }
  return id;
}

/**
 * The one fact a verified delivery becomes: the kind from the mapping, the
 * subject `{type, id at idPath}`, the body (a JSON object) as payload, the
 * webhook as actor, and `webhook:<name>:<delivery id>` as idempotency key, so
 * a replayed delivery resolves to the first one's fact.
 *
 * @throws AppError WEBHOOK_DELIVERY_INVALID `{field, reason}` for a body that
 *   is not an object or a kind, subject id or delivery id that cannot be had;
 *   PAYLOAD_TOO_LARGE for a body over MAX_PAYLOAD_BYTES serialized.
 */
export function webhookDeliveryFact(delivery: WebhookDelivery, ts: string): AcceptedFact {
  const { body } = delivery;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('body', 'it must be a JSON object');
  const size = Buffer.byteLength(JSON.stringify(body), 'utf8');
  if (size > MAX_PAYLOAD_BYTES) {
    throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `a delivery's body becomes the fact's payload, at most ${MAX_PAYLOAD_BYTES} bytes as JSON`, { limitBytes: MAX_PAYLOAD_BYTES });
  }
  return {
    id: newId(),
    workspace: delivery.workspace.slug,
    workspaceId: delivery.workspace.id,
    kind: kindOf(delivery),
    subject: { type: delivery.mapping.subject.type, id: subjectIdOf(delivery) },
    actor: webhookActor(delivery.name),
    payload: body as AcceptedFact['payload'],
    idempotencyKey: `webhook:${delivery.name}:${deliveryIdOf(delivery)}`,
    ts,
  };
}
