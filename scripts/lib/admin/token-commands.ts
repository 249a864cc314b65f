import { type Actor, AdminCreateTokenArgsSchema, AdminTokenRefSchema, AdminWorkspaceArgSchema, TOKEN_FACT_KINDS, type TokenFactKind } from '@switchyard/contracts';
import { newId, tokenFact } from '@switchyard/core';
import { recordFacts, type SqlRunner } from '@switchyard/db';
import { type AdminCommand, parseCommandArgs, parseCommandInput, printListing } from './admin-command';
import { type AdminWorkspace, findWorkspace, tokenOwner } from './workspace-members';
import { type AdminTokenListing, createWorkspaceToken, findTokenId, listWorkspaceTokens, revokeWorkspaceToken } from './workspace-tokens';

/** Who the audit trail names for the CLI's changes: the operator at the machine, not a member. */
const OPERATOR: Actor = { type: 'system', id: 'admin-cli', name: 'operator (npm run admin)' };

/** Records the token's audit fact (token.created | token.revoked) in the transaction of the change. */
async function recordTokenFact(tx: SqlRunner, workspace: AdminWorkspace, kind: TokenFactKind, token: AdminTokenListing): Promise<void> {
  const fact = tokenFact({ workspaceId: workspace.id, workspaceSlug: workspace.slug, actor: OPERATOR }, kind, token);
  await recordFacts(tx, [{ fact, correlationId: `admin-${newId()}` }]);
}

/** `create-token <workspace> --role <role> [--name N] [--user <userId>]`: a token of a member, printed once. */
export const createTokenCommand: AdminCommand = {
  usage: '<workspace> --role viewer|member|admin [--name NAME] [--user USER_ID]',
  summary: "creates an API token and prints it (once); it acts as --user, else the workspace's first admin",
  async run(args, { sql, print }) {
    const { positionals, values } = parseCommandArgs(args, 1, { role: { type: 'string' }, name: { type: 'string' }, user: { type: 'string' } });
    const input = parseCommandInput(AdminCreateTokenArgsSchema, { workspace: positionals[0], role: values.role, name: values.name, user: values.user });
    const workspace = await findWorkspace(sql(), input.workspace);
    const owner = await tokenOwner(sql(), workspace, input.role, input.user);
    const { info, secret } = await sql().transaction(async (tx) => {
      const created = await createWorkspaceToken(tx, { workspaceId: workspace.id, userId: owner.userId, name: input.name, role: input.role });
      await recordTokenFact(tx, workspace, TOKEN_FACT_KINDS.created, created.info);
      return created;
    });
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
    const { revokedAt, already } = await sql().transaction(async (tx) => {
      const revoked = await revokeWorkspaceToken(tx, workspace.id, id);
      if (!revoked.already) await recordTokenFact(tx, workspace, TOKEN_FACT_KINDS.revoked, revoked.token);
      return revoked;
    });
    // The gateways cache a token for TOKEN_CACHE_MS (5 s by default); the database refuses it at once.
    print(already ? `token ${id} was already revoked (${revokedAt.toISOString()})` : `token ${id} revoked; the gateways refuse it within TOKEN_CACHE_MS (5 s by default)`);
  },
};
