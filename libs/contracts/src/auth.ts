import { z } from 'zod';

/** viewer reads; member also writes facts; admin also manages tokens. */
export const RoleSchema = z.enum(['viewer', 'member', 'admin']);
export type Role = z.infer<typeof RoleSchema>;

/** The longest life a token may be created with: 366 days, in seconds. */
export const MAX_TOKEN_TTL_SECONDS = 366 * 24 * 3600;

/**
 * `POST /v1/workspaces/{ws}/tokens` body. A token expires at `expiresAt` or
 * `ttlSeconds` after its creation (at most one of them, at most
 * MAX_TOKEN_TTL_SECONDS ahead); without either it never expires.
 */
export const CreateTokenRequestSchema = z
  .strictObject({
    name: z.string().min(1).max(100),
    role: RoleSchema,
    /** When the token stops working (ISO 8601, in the future). */
    expiresAt: z.iso.datetime({ offset: true }).optional(),
    /** Seconds from now until the token stops working. */
    ttlSeconds: z.number().int().min(60).max(MAX_TOKEN_TTL_SECONDS).optional(),
  })
  .refine((body) => body.expiresAt === undefined || body.ttlSeconds === undefined, {
    message: 'give expiresAt or ttlSeconds, not both',
    path: ['ttlSeconds'],
  });
export type CreateTokenRequest = z.infer<typeof CreateTokenRequestSchema>;

/** A token as listed: never its secret, only the visible prefix. */
export const TokenInfoSchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  role: RoleSchema,
  prefix: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  /** When it stops working; null when it never expires. */
  expiresAt: z.iso.datetime().nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfoSchema>;

/** Returned once, at creation: the only time the secret is shown. */
export const CreatedTokenSchema = TokenInfoSchema.extend({ token: z.string() });

export const ListTokensResponseSchema = z.strictObject({ tokens: z.array(TokenInfoSchema) });

/** `POST /v1/workspaces/{ws}/stream-tickets`: a single-use ticket for EventSource. */
export const StreamTicketResponseSchema = z.strictObject({
  ticket: z.string(),
  expiresAt: z.iso.datetime(),
});

/** `GET /v1/workspaces/{ws}/stream` query. */
export const StreamQuerySchema = z.strictObject({
  kind: z.string().optional(),
  ticket: z.string().max(200).optional(),
  /** For clients that cannot send the Last-Event-ID header on the first connect. */
  after: z.coerce.number().int().min(0).optional(),
});

/**
 * `GET /v1/whoami`: what the bearer token is. `agent` is set for a run's
 * agent token (`sya_…`), which acts as its creator (`userId`).
 */
export const WhoAmIResponseSchema = z.strictObject({
  tokenId: z.uuid(),
  tokenType: z.enum(['api', 'agent']),
  workspace: z.strictObject({ id: z.uuid(), slug: z.string() }),
  userId: z.uuid(),
  /** The person's display name (decision 0042); null where it is not known. */
  userName: z.string().nullable(),
  role: RoleSchema,
  /** When the token stops working; null when it never expires. */
  expiresAt: z.iso.datetime().nullable(),
  agent: z.strictObject({ agentId: z.uuid(), runId: z.uuid(), depth: z.number().int().min(0) }).nullable(),
});
export type WhoAmIResponse = z.infer<typeof WhoAmIResponseSchema>;
