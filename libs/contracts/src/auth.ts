import { z } from 'zod';

/** viewer reads; member also writes facts; admin also manages tokens. */
export const RoleSchema = z.enum(['viewer', 'member', 'admin']);
export type Role = z.infer<typeof RoleSchema>;

/** `POST /v1/workspaces/{ws}/tokens` body. */
export const CreateTokenRequestSchema = z.strictObject({
  name: z.string().min(1).max(100),
  role: RoleSchema,
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
