import { AdminSignInLinkArgsSchema, AdminWorkspaceArgSchema } from '@switchyard/contracts';
import { createWorkspace } from '@switchyard/db';
import { type AdminCommand, parseCommandArgs, parseCommandInput, printListing } from './admin-command';
import { findWorkspace, listMembers } from './workspace-members';
import { mintSignInLink } from './sign-in-links';
import { linkBaseUrl } from '../operator-env';

/** `create-workspace NAME`: a workspace, its admin user and that user's first admin token (printed once). */
export const createWorkspaceCommand: AdminCommand = {
  usage: 'NAME',
  summary: 'creates a workspace and prints its first admin token (once)',
  async run(args, { sql, print }) {
    const { positionals } = parseCommandArgs(args, 1, {});
    const slug = parseCommandInput(AdminWorkspaceArgSchema, positionals[0]);
    const created = await createWorkspace(sql(), slug);
    print(`workspace ${slug} created (${created.workspaceId})`);
    print('admin token (shown once, store it now):');
    print(created.token);
  },
};

/** `list-members <workspace> [--json]`: each member's user id, name and role. */
export const listMembersCommand: AdminCommand = {
  usage: '<workspace> [--json]',
  summary: "lists a workspace's members: user id, name, role",
  async run(args, { sql, print }) {
    const { positionals, values } = parseCommandArgs(args, 1, { json: { type: 'boolean' } });
    const workspace = await findWorkspace(sql(), parseCommandInput(AdminWorkspaceArgSchema, positionals[0]));
    printListing(print, values.json, await listMembers(sql(), workspace.id), {
      header: ['user id', 'name', 'role', 'member since'],
      row: (m) => [m.userId, m.name, m.role, m.joinedAt.toISOString()],
      json: (m) => ({ ...m, joinedAt: m.joinedAt.toISOString() }),
    });
  },
};

/** `sign-in-link <workspace> [--user USER_ID]`: a one-time link that signs a member in to the web UI. */
export const signInLinkCommand: AdminCommand = {
  usage: '<workspace> [--user USER_ID]',
  summary: "prints a one-time web UI sign-in link (24 h) for --user, else the workspace's first admin",
  async run(args, { sql, print }) {
    const { positionals, values } = parseCommandArgs(args, 1, { user: { type: 'string' } });
    const input = parseCommandInput(AdminSignInLinkArgsSchema, { workspace: positionals[0], user: values.user });
    const workspace = await findWorkspace(sql(), input.workspace);
    const link = await mintSignInLink(sql(), workspace, linkBaseUrl(), input.user);
    print(`sign-in link for ${link.member.name} (${link.member.role} of ${workspace.slug}), once, until ${link.expiresAt.toISOString()}:`);
    print(link.url);
  },
};
