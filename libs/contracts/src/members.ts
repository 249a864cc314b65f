import { z } from 'zod';
import { RoleSchema } from './auth';
import { UiSessionResponseSchema } from './ui-session';

/*
 * People (issue 36, item 1; decision 0042): a workspace's members, each with a
 * role, invited by a one-time link. Limits are written here once.
 */

/** Longest display name a person may choose (the users' `name`). */
export const MAX_DISPLAY_NAME_CHARS = 100;

/** How long an invitation link (and a sign-in link) may be used: 24 hours, in seconds. */
export const INVITATION_TTL_SECONDS = 24 * 3600;

/** The web UI's page of an invitation link: `PUBLIC_URL` + JOIN_PATH + `#<secret>`. */
export const JOIN_PATH = '/join';

/** The web UI's page of a one-time sign-in link: `PUBLIC_URL` + SIGN_IN_LINK_PATH + `#<secret>`. */
export const SIGN_IN_LINK_PATH = '/sign-in';

/** A person's display name: trimmed, 1 to MAX_DISPLAY_NAME_CHARS characters, no control characters. */
export const DisplayNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(MAX_DISPLAY_NAME_CHARS)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters');

/** A member of a workspace as `GET /members` lists them. */
export const MemberSchema = z.strictObject({
  userId: z.uuid(),
  name: z.string(),
  role: RoleSchema,
  /** When they became a member. */
  joinedAt: z.iso.datetime(),
});
export type Member = z.infer<typeof MemberSchema>;

/** `GET /v1/workspaces/{ws}/members`: oldest first (the first admin is the workspace's creator). */
export const ListMembersResponseSchema = z.strictObject({ members: z.array(MemberSchema) });

/** `PATCH /v1/workspaces/{ws}/members/{userId}` body. */
export const ChangeMemberRoleRequestSchema = z.strictObject({ role: RoleSchema });
export type ChangeMemberRoleRequest = z.infer<typeof ChangeMemberRoleRequestSchema>;

/** `POST /v1/workspaces/{ws}/members/invitations` body: the role the invitee gets. */
export const CreateInvitationRequestSchema = z.strictObject({ role: RoleSchema });
export type CreateInvitationRequest = z.infer<typeof CreateInvitationRequestSchema>;

/** An invitation made (201): its one-time URL, shown once (only its hash is kept). */
export const InvitationSchema = z.strictObject({
  id: z.uuid(),
  role: RoleSchema,
  /** `PUBLIC_URL` + `/join#<secret>`: the secret is in the fragment, which browsers never send to a server. */
  url: z.string(),
  expiresAt: z.iso.datetime(),
});
export type Invitation = z.infer<typeof InvitationSchema>;

/** The secret of an invitation or sign-in link (`syl_` + 43 base64url characters). */
export const AccessLinkSecretSchema = z.string().regex(/^syl_[A-Za-z0-9_-]{43}$/, 'not a link token');

/** `POST /v1/invitations/accept` body: the link's secret and the name the person chooses. */
export const AcceptInvitationRequestSchema = z.strictObject({ token: AccessLinkSecretSchema, name: DisplayNameSchema });
export type AcceptInvitationRequest = z.infer<typeof AcceptInvitationRequestSchema>;

/** `POST /v1/sign-in-links/redeem` body: a sign-in link's secret. */
export const RedeemSignInLinkRequestSchema = z.strictObject({ token: AccessLinkSecretSchema });
export type RedeemSignInLinkRequest = z.infer<typeof RedeemSignInLinkRequestSchema>;

/** Payload of `member.invited`: the invitation (never its secret). */
export const MemberInvitedPayloadSchema = z.strictObject({ invitationId: z.uuid(), role: RoleSchema, expiresAt: z.iso.datetime() });
export type MemberInvitedPayload = z.infer<typeof MemberInvitedPayloadSchema>;

/**
 * Payload of `member.joined`, `member.role_changed`, `member.removed`: the
 * person (id, name as then) and their role after the change (`removed`: the
 * role they had); `previousRole` for a role change; `invitationId` for a join.
 */
export const MemberFactPayloadSchema = z.strictObject({
  userId: z.uuid(),
  name: z.string(),
  role: RoleSchema,
  previousRole: RoleSchema.optional(),
  invitationId: z.uuid().optional(),
});
export type MemberFactPayload = z.infer<typeof MemberFactPayloadSchema>;

/**
 * `POST /v1/invitations/accept` and `POST /v1/sign-in-links/redeem` (201): the
 * browser session opened (its cookie set), the person's own API token (shown
 * once) and who they are in the workspace.
 */
export const JoinedResponseSchema = UiSessionResponseSchema.extend({ token: z.string(), member: MemberSchema });
export type JoinedResponse = z.infer<typeof JoinedResponseSchema>;
