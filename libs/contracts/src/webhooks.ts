import { z } from 'zod';
import { SubjectSchema } from './facts';

/**
 * Inbound webhooks (docs/webhooks.md, decision 0039): a sender posts to
 * `/v1/workspaces/{ws}/webhooks/{name}` with no platform token; the delivery
 * is verified against the webhook's secret and becomes one fact.
 */

/** Webhook names: the `{name}` of the path, lowercase like workspace slugs. */
export const WebhookNameSchema = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z][a-z0-9_-]*$/, 'webhook names start with a lowercase letter and use lowercase letters, digits, _ and -');

/** How a delivery is verified: GitHub's `X-Hub-Signature-256`, an HMAC-SHA256 in a header you name, or not at all. */
export const WebhookVerifierSchema = z.enum(['github', 'hmac-sha256', 'none']);
export type WebhookVerifier = z.infer<typeof WebhookVerifierSchema>;

/** Shortest signing secret accepted: 16 characters (`openssl rand -hex 32` gives 64). */
export const MIN_WEBHOOK_SECRET_CHARS = 16;
/** Longest signing secret accepted. */
export const MAX_WEBHOOK_SECRET_CHARS = 1_024;

/** A signing secret: the HMAC key is its UTF-8 bytes, as GitHub uses it. */
export const WebhookSecretSchema = z
  .string()
  .min(MIN_WEBHOOK_SECRET_CHARS, `a signing secret has at least ${MIN_WEBHOOK_SECRET_CHARS} characters`)
  .max(MAX_WEBHOOK_SECRET_CHARS)
  .regex(/^[\x20-\x7e]+$/, 'a signing secret is printable ASCII');

/** An HTTP header name (a token), compared case-insensitively: stored lowercase. */
export const HeaderNameSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'header names are HTTP tokens')
  .transform((name) => name.toLowerCase());

/** Longest JSONPath accepted. */
export const MAX_JSON_PATH_CHARS = 256;
/** Most steps (selectors after `$`) in a JSONPath. */
export const MAX_JSON_PATH_STEPS = 32;

/**
 * One selector of the JSONPath subset: `.name` (a letter or `_`, then letters,
 * digits, `_`), `['any name']` (with `\'` and `\\` the only escapes, no
 * control characters) or `[index]` (a non-negative integer, no leading zero).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a quoted name may not hold.
export const JSON_PATH_SELECTOR = /\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\\u0000-\u001f]|\\['\\])*)'\]|\[(0|[1-9][0-9]{0,8})\]/;

/** A whole JSONPath of the subset: `$` followed by selectors. */
export const JSON_PATH_PATTERN = new RegExp(`^\\$(?:${JSON_PATH_SELECTOR.source})*$`);

/**
 * A JSONPath of the documented subset (RFC 9535 singular queries without
 * filters, wildcards, slices or descendants): `$`, `.name`, `['name']`,
 * `[index]`, e.g. `$.repository.full_name` or `$.commits[0]['id']`.
 */
export const JsonPathSchema = z
  .string()
  .max(MAX_JSON_PATH_CHARS)
  .regex(JSON_PATH_PATTERN, "JSONPath: $ followed by .name, ['name'] or [index] selectors")
  .refine((path) => (path.match(new RegExp(JSON_PATH_SELECTOR.source, 'g')) ?? []).length <= MAX_JSON_PATH_STEPS, {
    message: `a JSONPath has at most ${MAX_JSON_PATH_STEPS} selectors`,
  });

/** A JSONPath into a delivery's body: at least one selector (`$` alone is the whole body, never a kind or an id). */
const BodyPathSchema = JsonPathSchema.refine((path) => path !== '$', { message: 'the path selects a value inside the body: $ alone is the whole body' });

/** A kind prefix: the start of a kind, ending with a dot, an underscore or a segment (`github.`, `ci_`, `deploy.finished`). */
export const WebhookKindPrefixSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*\.?$/, 'a kind prefix is lowercase segments separated by dots, optionally ending with a dot');

/**
 * Where a delivery's fact kind comes from: a request header's value or a
 * JSONPath into the body (at most one), after `prefix`. With neither, the
 * prefix alone is the kind (and must then be a whole kind, not end with a dot).
 */
export const WebhookKindSchema = z
  .strictObject({
    header: HeaderNameSchema.optional(),
    path: BodyPathSchema.optional(),
    prefix: WebhookKindPrefixSchema.optional(),
  })
  .superRefine((kind, ctx) => {
    if (kind.header !== undefined && kind.path !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'the kind comes from a header or a path, not both', path: ['path'] });
    } else if (kind.header === undefined && kind.path === undefined && (kind.prefix === undefined || kind.prefix.endsWith('.'))) {
      ctx.addIssue({ code: 'custom', message: 'without a header or a path, the prefix is the whole kind (and cannot end with a dot)', path: ['prefix'] });
    }
  });
export type WebhookKind = z.infer<typeof WebhookKindSchema>;

/** Where a delivery's fact subject comes from: a fixed type, its id at a JSONPath into the body. */
export const WebhookSubjectSchema = z.strictObject({ type: SubjectSchema.shape.type, idPath: BodyPathSchema });
export type WebhookSubject = z.infer<typeof WebhookSubjectSchema>;

/** The kind of a `github` webhook that names none: the `X-GitHub-Event` header after `github.`. */
export const GITHUB_DEFAULT_KIND = { header: 'x-github-event', prefix: 'github.' } as const;

const signed = { secret: WebhookSecretSchema, subject: WebhookSubjectSchema };

/**
 * `PUT /v1/workspaces/{ws}/webhooks/{name}` (admin): the whole configuration,
 * replaced. `github` reads `X-Hub-Signature-256` and `X-GitHub-Delivery` (its
 * kind defaults to GITHUB_DEFAULT_KIND); `hmac-sha256` reads the signature
 * from `signatureHeader` and the delivery id from `deliveryIdHeader` (without
 * one, the SHA-256 of the body is the delivery id); `none` needs the
 * operator's WEBHOOK_ALLOW_UNSIGNED.
 */
export const PutWebhookRequestSchema = z.discriminatedUnion('verifier', [
  z.strictObject({ verifier: z.literal('github'), ...signed, kind: WebhookKindSchema.default({ ...GITHUB_DEFAULT_KIND }) }),
  z.strictObject({ verifier: z.literal('hmac-sha256'), ...signed, kind: WebhookKindSchema, signatureHeader: HeaderNameSchema, deliveryIdHeader: HeaderNameSchema.optional() }),
  z.strictObject({ verifier: z.literal('none'), subject: WebhookSubjectSchema, kind: WebhookKindSchema, deliveryIdHeader: HeaderNameSchema.optional() }),
]);
export type PutWebhookRequest = z.infer<typeof PutWebhookRequestSchema>;

/** What a stored webhook maps a delivery with (its `config` column): everything but the verifier and the secret. */
export const WebhookMappingSchema = z.strictObject({
  kind: WebhookKindSchema,
  subject: WebhookSubjectSchema,
  signatureHeader: HeaderNameSchema.optional(),
  deliveryIdHeader: HeaderNameSchema.optional(),
});
export type WebhookMapping = z.infer<typeof WebhookMappingSchema>;

/** A webhook as shown to admins: its configuration and dates, never its secret. */
export const WebhookSchema = WebhookMappingSchema.extend({
  name: WebhookNameSchema,
  verifier: WebhookVerifierSchema,
  /** Where senders post, on the gateway's public address. */
  deliveryPath: z.string(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const ListWebhooksResponseSchema = z.strictObject({ webhooks: z.array(WebhookSchema) });

/** Longest delivery id accepted (a header's value, printable ASCII). */
export const MAX_WEBHOOK_DELIVERY_ID_CHARS = 128;

/** The facts of webhook configuration changes (never carrying the secret). */
export const WEBHOOK_FACT_KINDS = {
  /** A webhook was created or its configuration replaced. */
  configured: 'webhook.configured',
  /** A webhook was deleted. */
  deleted: 'webhook.deleted',
} as const;

/** Payload of `webhook.configured`: the configuration as saved (no secret), and whether it was new. */
export const WebhookConfiguredPayloadSchema = WebhookMappingSchema.extend({ name: WebhookNameSchema, verifier: WebhookVerifierSchema, created: z.boolean() });
export type WebhookConfiguredPayload = z.infer<typeof WebhookConfiguredPayloadSchema>;

/** Payload of `webhook.deleted`. */
export const WebhookDeletedPayloadSchema = z.strictObject({ name: WebhookNameSchema, verifier: WebhookVerifierSchema });
export type WebhookDeletedPayload = z.infer<typeof WebhookDeletedPayloadSchema>;

/** Which part of a verified delivery could not become a fact (WEBHOOK_DELIVERY_INVALID's `data.field`). */
export const WebhookDeliveryFieldSchema = z.enum(['body', 'kind', 'subject', 'deliveryId']);
export type WebhookDeliveryField = z.infer<typeof WebhookDeliveryFieldSchema>;
