import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, uuidParameter, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const linkErrors = {
  '400': json('Error', 'VALIDATION_FAILED'),
  '404': json('Error', 'INVITATION_NOT_FOUND: unknown link'),
  '409': json('Error', 'INVITATION_USED: a link works once'),
  '410': json('Error', 'INVITATION_EXPIRED: past its 24 hours'),
};

/** The workspace's people (decision 0042, docs/people.md): members, invitations, one-time sign-in links. */
export function peoplePaths(): OpenApiPaths {
  return {
    [`${base}/members`]: {
      get: {
        operationId: 'listMembers',
        summary: "The workspace's members, oldest first: user id, display name, role, since when",
        parameters: [ws],
        responses: { '200': json('ListMembersResponse', 'the members'), ...errors },
      },
    },
    [`${base}/members/{userId}`]: {
      patch: {
        operationId: 'changeMemberRole',
        summary: "Sets a member's role (admin); their tokens and sessions act with it at once where it is lower. 409 LAST_ADMIN for the last admin",
        parameters: [ws, uuidParameter('userId')],
        requestBody: body('ChangeMemberRoleRequest'),
        responses: { '200': json('Member', 'the member'), ...errors },
      },
      delete: {
        operationId: 'removeMember',
        summary: 'Removes a member (admin): revokes their API tokens and browser sessions, unlinks their Mattermost users; their open event stream closes within STREAM_AUTH_RECHECK_MS. 409 LAST_ADMIN for the last admin',
        parameters: [ws, uuidParameter('userId')],
        responses: { '204': { description: 'removed' }, ...errors },
      },
    },
    [`${base}/members/invitations`]: {
      post: {
        operationId: 'inviteMember',
        summary: 'A one-time invitation link (admin), valid 24 hours, single use; the URL is shown once (only its hash is kept)',
        parameters: [ws],
        requestBody: body('CreateInvitationRequest'),
        responses: { '201': json('Invitation', 'the invitation and its URL'), ...errors },
      },
    },
    '/v1/invitations/accept': {
      post: {
        operationId: 'acceptInvitation',
        summary: "Accepts an invitation with a chosen display name: a new member, their own API token (shown once) and a web UI session (Set-Cookie: sy_session). No credential: the link's secret is one",
        security: [],
        requestBody: body('AcceptInvitationRequest'),
        responses: { '201': json('JoinedResponse', 'joined; Set-Cookie: sy_session'), ...linkErrors },
      },
    },
    '/v1/sign-in-methods': {
      get: {
        operationId: 'getSignInMethods',
        summary: 'How the web UI may sign a person in: whether single sign-on (OpenID Connect) is configured, and where it starts',
        security: [],
        responses: { '200': json('SignInMethodsResponse', 'the methods') },
      },
    },
    '/v1/sso/login': {
      get: {
        operationId: 'startSso',
        summary: "Single sign-on: redirects the browser to the OpenID Connect provider (state, nonce, PKCE), binding the sign-in to this browser with a cookie",
        security: [],
        responses: { '302': { description: 'to the provider' }, '404': json('Error', 'SSO_NOT_CONFIGURED'), '503': json('Error', 'UNAVAILABLE: the provider does not answer') },
      },
    },
    '/v1/sso/callback': {
      get: {
        operationId: 'finishSso',
        summary: "Single sign-on: the provider's redirect back. Verifies the answer, maps the person's groups to a role (OIDC_ROLE_MAP), makes or updates their membership, opens a session and redirects to the UI",
        security: [],
        parameters: [
          { name: 'state', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'code', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'error', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '302': { description: 'signed in; Set-Cookie: sy_session; to /' },
          '400': json('Error', 'VALIDATION_FAILED, SSO_STATE_INVALID'),
          '401': json('Error', 'SSO_REFUSED'),
          '403': json('Error', 'SSO_NO_ROLE: no group maps to a role'),
          '404': json('Error', 'SSO_NOT_CONFIGURED'),
        },
      },
    },
    '/v1/sign-in-links/redeem': {
      post: {
        operationId: 'redeemSignInLink',
        summary: "Signs a member in with a one-time sign-in link (`npm start`'s banner, `npm run admin -- sign-in-link`): a new API token of theirs (shown once) and a web UI session",
        security: [],
        requestBody: body('RedeemSignInLinkRequest'),
        responses: { '201': json('JoinedResponse', 'signed in; Set-Cookie: sy_session'), ...linkErrors },
      },
    },
  };
}
