import { z } from 'zod';
import { RoleSchema } from './auth';
import { WorkspaceSlugSchema } from './facts';
import { AgentNameSchema } from './agents';
import { MAX_BUNDLE_AGENTS } from './agent-bundles';

/*
 * The arguments of the operator's CLI (`npm run admin -- …`), parsed at its door like any other
 * outside input. The messages are the CLI's: they name the argument as typed.
 */

/** A workspace named on the command line: its slug. */
export const AdminWorkspaceArgSchema = z.string({ error: 'a workspace name is required' }).pipe(WorkspaceSlugSchema);

/** `--role`: a workspace role, named as the API names it. */
export const AdminRoleArgSchema = z.string({ error: '--role is required (viewer, member or admin)' }).pipe(
  z.enum(RoleSchema.options, { error: (issue) => `unknown role ${JSON.stringify(issue.input)}: viewer, member or admin` }),
);

/** The name a token made on the command line gets when `--name` is not given. */
export const ADMIN_TOKEN_DEFAULT_NAME = 'made by npm run admin';

/** `create-token <workspace> --role <role> [--name N] [--user <userId>]`. */
export const AdminCreateTokenArgsSchema = z.strictObject({
  workspace: AdminWorkspaceArgSchema,
  role: AdminRoleArgSchema,
  /** The token's name, as listings show it (1 to 100 characters, as the API's). */
  name: z.string().trim().min(1, '--name is empty').max(100, '--name is longer than 100 characters').default(ADMIN_TOKEN_DEFAULT_NAME),
  /** The member the token acts as (their user id); absent: the workspace's first admin. */
  user: z.uuid({ error: (issue) => `--user ${JSON.stringify(issue.input)} is not a user id (list-members shows them)` }).optional(),
});
export type AdminCreateTokenArgs = z.infer<typeof AdminCreateTokenArgsSchema>;

/**
 * A token named on `revoke-token`: its id, its prefix as `list-tokens` shows it, or the whole
 * token (`sy_…`, never printed back).
 */
export const AdminTokenRefSchema = z.union(
  [z.uuid(), z.string().regex(/^sy_[A-Za-z0-9_-]{1,200}$/)],
  { error: (issue) => `${JSON.stringify(issue.input)} is neither a token id nor a token prefix (list-tokens shows both)` },
);

/** `export-agents <workspace> [AGENT …] [--versions all|latest|used] [--out FILE]` (decision 0046). */
export const AdminExportAgentsArgsSchema = z.strictObject({
  workspace: AdminWorkspaceArgSchema,
  /** Agents by name or id; none: every live agent of the workspace. */
  agents: z.array(z.union([z.uuid(), AgentNameSchema], { error: (issue) => `${JSON.stringify(issue.input)} is neither an agent name nor an agent id` })).max(MAX_BUNDLE_AGENTS),
  versions: z.enum(['all', 'latest', 'used'], { error: (issue) => `--versions ${JSON.stringify(issue.input)}: all, latest or used` }).default('all'),
  /** Where to write the bundle; absent: stdout. */
  out: z.string().min(1, '--out is empty').optional(),
});
export type AdminExportAgentsArgs = z.infer<typeof AdminExportAgentsArgsSchema>;

/** `import-agents <workspace> <file>` (decision 0046). */
export const AdminImportAgentsArgsSchema = z.strictObject({
  workspace: AdminWorkspaceArgSchema,
  file: z.string({ error: 'a bundle file is required' }).min(1, 'a bundle file is required'),
});

/** `sign-in-link <workspace> [--user <userId>]`. */
export const AdminSignInLinkArgsSchema = z.strictObject({
  workspace: AdminWorkspaceArgSchema,
  /** The member the link signs in (their user id); absent: the workspace's first admin. */
  user: z.uuid({ error: (issue) => `--user ${JSON.stringify(issue.input)} is not a user id (list-members shows them)` }).optional(),
});
