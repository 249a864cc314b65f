import { AdminCreateTokenArgsSchema, AdminTokenRefSchema, AdminWorkspaceArgSchema } from '@switchyard/contracts';
import { type AdminCommand, parseCommandArgs, parseCommandInput, printListing } from './admin-command';
import { findWorkspace, tokenOwner } from './workspace-members';
import { type AdminTokenListing, createWorkspaceToken, findTokenId, listWorkspaceTokens, revokeWorkspaceToken } from './workspace-tokens';

/** `create-token <workspace> --role <role> [--name N] [--user <userId>]`: a token of a member, printed once. */
export const createTokenCommand: AdminCommand = {
  usage: '<workspace> --role viewer|member|admin [--name NAME] [--user USER_ID]',
  summary: "creates an API token and prints it (once); it acts as --user, else the workspace's first admin",
  async run(args, { sql, print }) {
    const { positionals, values } = parseCommandArgs(args, 1, { role: { type: 'string' }, name: { type: 'string' }, user: { type: 'string' } });
    const input = parseCommandInput(AdminCreateTokenArgsSchema, { workspace: positionals[0], role: values.role, name: values.name, user: values.user });
    const workspace = await findWorkspace(sql(), input.workspace);
    const owner = await tokenOwner(sql(), workspace, input.role, input.user);
    const { info, secret } = await createWorkspaceToken(sql(), { workspaceId: workspace.id, userId: owner.userId, name: input.name, role: input.role });
    print(`token "${info.name}" (${info.role}) of ${owner.name} (${owner.userId}) in ${workspace.slug}: id ${info.id}, prefix ${info.prefix}`);
    print('token (shown once, store it now):');
    print(secret);
  },
};

/** A token's state as listed: active, or why not. */
function stateOf(token: AdminTokenListing, now: Date): string {
  if (token.revokedAt) return `revoked ${token.revokedAt}`;
  if (token.expiresAt && new Date(token.expiresAt) <= now) return `expired ${token.expiresAt}`;
  return token.expiresAt ? `active until ${token.expiresAt}` : 'active';
}

/** `list-tokens <workspace> [--json]`: every API token (never a secret), whose, and its state. */
export const listTokensCommand: AdminCommand = {
  usage: '<workspace> [--json]',
  summary: "lists a workspace's API tokens: id, prefix, role, name, whose, state (never a secret)",
  async run(args, { sql, print }) {
    const { positionals, values } = parseCommandArgs(args, 1, { json: { type: 'boolean' } });
    const workspace = await findWorkspace(sql(), parseCommandInput(AdminWorkspaceArgSchema, positionals[0]));
    const now = new Date();
    printListing(print, values.json, await listWorkspaceTokens(sql(), workspace.id), {
      header: ['id', 'prefix', 'role', 'name', 'user', 'created', 'last used', 'state'],
      row: (t) => [t.id, t.prefix, t.role, t.name, t.userName, t.createdAt, t.lastUsedAt ?? 'never', stateOf(t, now)],
    });
  },
};

/** `revoke-token <workspace> <tokenId|prefix>`: revokes a token (and the browser sessions it opened). */
export const revokeTokenCommand: AdminCommand = {
  usage: '<workspace> <TOKEN_ID|PREFIX>',
  summary: 'revokes a token, named by its id or its prefix as list-tokens shows them',
  async run(args, { sql, print }) {
    const { positionals } = parseCommandArgs(args, 2, {});
    const slug = parseCommandInput(AdminWorkspaceArgSchema, positionals[0]);
    const ref = parseCommandInput(AdminTokenRefSchema, positionals[1]);
    const workspace = await findWorkspace(sql(), slug);
    const id = await findTokenId(sql(), workspace.id, ref);
    const { revokedAt, already } = await revokeWorkspaceToken(sql(), workspace.id, id);
    // The gateways cache a token for TOKEN_CACHE_MS (5 s by default); the database refuses it at once.
    print(already ? `token ${id} was already revoked (${revokedAt.toISOString()})` : `token ${id} revoked; the gateways refuse it within TOKEN_CACHE_MS (5 s by default)`);
  },
};
