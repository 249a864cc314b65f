import { readFile, writeFile } from 'node:fs/promises';
import { type Actor, AdminExportAgentsArgsSchema, AdminImportAgentsArgsSchema, AgentBundleSchema, AppError, ErrorCode } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createPrismaClient, type PrismaClient } from '@switchyard/db';
import { PrismaAgentBundleStore } from '../../../services/gateway/src/adapters/prisma-agent-bundle-store';
import { AgentBundles } from '../../../services/gateway/src/commands/agent-bundles';
import { type AdminCommand, type AdminContext, parseCommandArgs, parseCommandInput, UsageError } from './admin-command';
import { findWorkspace, tokenOwner } from './workspace-members';

/** Who the audit trail names for the CLI's imports: the operator at the machine, not a member. */
const OPERATOR: Actor = { type: 'system', id: 'admin-cli', name: 'operator (npm run admin)' };

/**
 * The gateway's own bundle command on a Prisma client of the CLI's: the same
 * checks and writes as the API. Its facts wait in the outbox for the
 * event-log's relay (decision 0024): the CLI has no fact publisher.
 */
async function withBundles<T>(context: AdminContext, use: (bundles: AgentBundles, prisma: PrismaClient) => Promise<T>): Promise<T> {
  const prisma = createPrismaClient({ databaseUrl: context.config.DATABASE_URL, poolMax: 1, applicationName: 'admin' });
  try {
    const bundles = new AgentBundles({ agentBundles: new PrismaAgentBundleStore(prisma), outbox: { flush: async () => {} }, userName: async () => null });
    return await use(bundles, prisma);
  } finally {
    await prisma.$disconnect();
  }
}

/** `export-agents <workspace> [AGENT …] [--versions all|latest|used] [--out FILE]`: a bundle of agents, by name or id. */
export const exportAgentsCommand: AdminCommand = {
  usage: '<workspace> [AGENT …] [--versions all|latest|used] [--out FILE]',
  summary: 'writes a bundle of agents (every live one when none is named): versions with their specHash, tags, pin, rules among them; secrets by name only',
  async run(args, context) {
    const { positionals, values } = parseCommandArgs(args, 1 + 100, { versions: { type: 'string' }, out: { type: 'string' } });
    const input = parseCommandInput(AdminExportAgentsArgsSchema, { workspace: positionals[0], agents: positionals.slice(1), versions: values.versions, out: values.out });
    const workspace = await findWorkspace(context.sql(), input.workspace);
    const bundle = await withBundles(context, async (bundles, prisma) => {
      const live = await prisma.agent.findMany({ where: { workspaceId: workspace.id, deletedAt: null }, select: { id: true, name: true }, orderBy: { id: 'asc' } });
      if (live.length === 0) throw new UsageError(`workspace ${workspace.slug} has no agents to export`);
      const ids = input.agents.length === 0 ? live.map((a) => a.id) : input.agents.map((ref) => live.find((a) => a.id === ref || a.name === ref)?.id ?? unknownAgent(ref, workspace.slug));
      return bundles.exportAgents(workspace.id, workspace.slug, [...new Set(ids)], input.versions);
    });
    const text = `${JSON.stringify(bundle, null, 2)}\n`;
    if (input.out === undefined) context.print(text.trimEnd());
    else {
      await writeFile(input.out, text);
      console.error(`wrote ${bundle.agents.length} agent(s) to ${input.out}; secrets to set in the target: ${bundle.secrets.join(', ') || 'none'}`);
    }
  },
};

function unknownAgent(ref: string, slug: string): never {
  throw new AppError(ErrorCode.AGENT_NOT_FOUND, `no live agent named ${ref} in workspace ${slug}`, { id: ref });
}

/** `import-agents <workspace> <file>`: imports a bundle, all or nothing, as the workspace's first admin; the agents are created disabled. */
export const importAgentsCommand: AdminCommand = {
  usage: '<workspace> <FILE>',
  summary: 'imports a bundle (checked whole: spec hashes, unknown fields, collaborators) as new, disabled agents',
  async run(args, context) {
    const { positionals } = parseCommandArgs(args, 2, {});
    const input = parseCommandInput(AdminImportAgentsArgsSchema, { workspace: positionals[0], file: positionals[1] });
    const workspace = await findWorkspace(context.sql(), input.workspace);
    const owner = await tokenOwner(context.sql(), workspace, 'member');
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(input.file, 'utf8'));
    } catch (error) {
      throw new UsageError(`cannot read ${input.file} as JSON: ${(error as Error).message}`);
    }
    const parsed = AgentBundleSchema.safeParse(raw);
    if (!parsed.success) {
      const where = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(bundle)'}: ${issue.message}`);
      throw new AppError(ErrorCode.VALIDATION_FAILED, `${ErrorCode.VALIDATION_FAILED}: the bundle is not valid — ${where.join('; ')}`, parsed.error.issues);
    }
    const author = { workspaceId: workspace.id, workspaceSlug: workspace.slug, actor: OPERATOR };
    const result = await withBundles(context, (bundles) => bundles.importAs({ workspaceId: workspace.id, userId: owner.userId }, author, `admin-${newId()}`, parsed.data));
    for (const agent of result.agents) {
      context.print(`imported ${agent.name} as ${agent.id} (disabled): versions ${agent.versions.map((v) => `${v.bundleVersion}→${v.version}`).join(', ')}${agent.pinnedVersion ? `, pinned ${agent.pinnedVersion}` : ''}`);
    }
    context.print(`secrets to set before enabling: ${result.secrets.join(', ') || 'none'}`);
  },
};
