import { z } from 'zod';
import { WhoAmIResponseSchema } from './auth';

/** The cookie that carries a web UI session (decision 0029). */
export const UI_SESSION_COOKIE = 'sy_session';

/** The header every mutating request made with the session cookie carries (decision 0029). */
export const CSRF_HEADER = 'x-csrf-token';

/** The longest a UI session may be configured to live: 30 days, in seconds. */
export const MAX_UI_SESSION_TTL_SECONDS = 30 * 24 * 3600;

/** `POST /v1/session` body: the API token a person pastes once. */
export const CreateUiSessionRequestSchema = z.strictObject({
  token: z.string().min(1).max(200),
});
export type CreateUiSessionRequest = z.infer<typeof CreateUiSessionRequestSchema>;

/**
 * `POST /v1/session` (201) and `GET /v1/session` (200): the session's CSRF
 * token (to send as `x-csrf-token` on every mutating request), when the
 * session ends, and what it acts as (its token, as `GET /v1/whoami` shows it).
 */
export const UiSessionResponseSchema = z.strictObject({
  csrfToken: z.string(),
  expiresAt: z.iso.datetime(),
  whoami: WhoAmIResponseSchema,
});
export type UiSessionResponse = z.infer<typeof UiSessionResponseSchema>;
