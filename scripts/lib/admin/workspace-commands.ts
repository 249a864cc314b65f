import { AdminWorkspaceArgSchema } from '@switchyard/contracts';
import { createWorkspace } from '@switchyard/db';
import { type AdminCommand, parseCommandArgs, parseCommandInput, printListing } from './admin-command';
import { findWorkspace, listMembers } from './workspace-members';

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
