import { z } from 'zod';
import { RoleSchema, type Role } from './auth';

/*
 * Single sign-on with OpenID Connect (decision 0042): the operator names one provider and the
 * workspace it signs people in to; the provider's groups decide each person's role.
 */

/**
 * OIDC_ROLE_MAP: `group=role` pairs, comma-separated (`sy-admins=admin,developers=member`).
 * A person gets the highest role any of their groups maps to; none: refused.
 */
export const SsoRoleMapSchema = z
  .string()
  .transform((text, ctx) => {
    // No prototype: a group named `__proto__` or `constructor` is a group like any other.
    const map = Object.create(null) as Record<string, Role>;
    for (const pair of text.split(',').map((p) => p.trim()).filter((p) => p.length > 0)) {
      const at = pair.lastIndexOf('=');
      const group = pair.slice(0, at).trim();
      const role = RoleSchema.safeParse(pair.slice(at + 1).trim());
      if (at <= 0 || group.length === 0 || !role.success) {
        ctx.addIssue({ code: 'custom', message: `"${pair}" is not group=viewer|member|admin` });
        return z.NEVER;
      }
      map[group] = role.data;
    }
    return map;
  })
  .refine((map) => Object.keys(map).length > 0, 'at least one group=role');
export type SsoRoleMap = z.infer<typeof SsoRoleMapSchema>;

/**
 * `GET /v1/sso/callback` query, as the provider redirects the browser back: the code and state
 * (or an error). Other parameters the provider adds (`iss`, `session_state`) pass to the client
 * library, which checks them.
 */
export const SsoCallbackQuerySchema = z.looseObject({
  state: z.string().min(1).max(200),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
});

/** `GET /v1/sign-in-methods`: how the web UI's sign-in page may sign a person in. */
export const SignInMethodsResponseSchema = z.strictObject({
  /** Single sign-on: where the browser goes to start it (null: not configured). */
  sso: z.strictObject({ loginUrl: z.string(), workspace: z.string() }).nullable(),
});
export type SignInMethodsResponse = z.infer<typeof SignInMethodsResponseSchema>;
