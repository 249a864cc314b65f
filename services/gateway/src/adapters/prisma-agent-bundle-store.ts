import { TemplateOriginSchema, type TemplateOrigin } from '@switchyard/contracts';
import { recordFacts, type Prisma, type PrismaClient } from '@switchyard/db';
import type { AgentRecord } from '../agent-ports';
import type { FactsOf } from '../fact-ports';
import type { AgentBundleStore, BundleSourceAgent, ImportedAgentPlan } from '../version-ports';
import { isUniqueViolation, readSpec, toRecord, versionRowData } from './prisma-agent-store';

/** A stored template origin (a JSON column is a boundary); null when absent or unreadable. */
function templateOriginOf(value: unknown): TemplateOrigin | null {
  const parsed = TemplateOriginSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The version numbers an export carries of one agent. */
function chosenVersions(head: { latestVersion: number; pinnedVersion: number | null }, tags: Array<{ version: number }>, mode: 'all' | 'latest' | 'used' | number[]) {
  if (mode === 'all') return undefined;
  if (mode === 'latest') return [head.latestVersion];
  if (mode === 'used') return [head.latestVersion, ...(head.pinnedVersion === null ? [] : [head.pinnedVersion]), ...tags.map((t) => t.version)];
  return mode;
}

/** Export reads and the all-or-nothing import on PostgreSQL. */
export class PrismaAgentBundleStore implements AgentBundleStore {
  constructor(private readonly prisma: PrismaClient) {}

  async readForExport(workspaceId: string, ids: string[], mode: 'all' | 'latest' | 'used' | number[]): Promise<BundleSourceAgent[]> {
    const heads = await this.prisma.agent.findMany({
      where: { workspaceId, id: { in: ids }, deletedAt: null },
      include: { tags: { orderBy: { tag: 'asc' }, select: { tag: true, version: true } } },
    });
    const agents: BundleSourceAgent[] = [];
    for (const head of heads) {
      const numbers = chosenVersions(head, head.tags, mode);
      const versions = await this.prisma.agentVersion.findMany({
        where: { agentId: head.id, ...(numbers === undefined ? {} : { version: { in: numbers } }) },
        orderBy: { version: 'asc' },
      });
      const rules = await this.prisma.agentCollaborator.findMany({ where: { workspaceId, agentId: head.id }, orderBy: { collaboratorId: 'asc' } });
      agents.push({
        id: head.id,
        name: head.name,
        enabled: head.enabled,
        latestVersion: head.latestVersion,
        pinnedVersion: head.pinnedVersion,
        templateOrigin: templateOriginOf(head.templateOrigin),
        versions: versions.map((row) => ({ version: row.version, spec: readSpec(row) })),
        tags: head.tags,
        collaborators: rules.map((rule) => ({ agentId: rule.collaboratorId, enabled: rule.enabled })),
      });
    }
    return agents;
  }

  async importAgents(
    input: { workspaceId: string; userId: string; agents: ImportedAgentPlan[] },
    facts: FactsOf<AgentRecord[]>,
  ): Promise<{ ok: true; agents: AgentRecord[] } | { ok: false; reason: 'name_taken'; name: string }> {
    const names = input.agents.map((plan) => plan.specs.at(-1)!.name);
    const taken = await this.prisma.agent.findFirst({ where: { workspaceId: input.workspaceId, deletedAt: null, name: { in: names } }, select: { name: true } });
    if (taken) return { ok: false, reason: 'name_taken', name: taken.name };
    try {
      return await this.prisma.$transaction(async (tx) => {
        const agents: AgentRecord[] = [];
        for (const plan of input.agents) agents.push(await this.createAgent(tx, input, plan));
        const rules = input.agents.flatMap((plan) =>
          plan.collaborators.map((rule) => ({ workspaceId: input.workspaceId, agentId: plan.id, collaboratorId: rule.agentId, enabled: rule.enabled, updatedBy: input.userId })),
        );
        if (rules.length > 0) await tx.agentCollaborator.createMany({ data: rules });
        await recordFacts(tx, facts(agents));
        return { ok: true as const, agents };
      });
    } catch (error) {
      // A name taken between the check and the commit: the whole import is refused.
      if (isUniqueViolation(error)) return { ok: false, reason: 'name_taken', name: names.join(', ') };
      throw error;
    }
  }

  /** One planned agent: its head (disabled), its versions 1…n and its tags. */
  private async createAgent(tx: Prisma.TransactionClient, input: { workspaceId: string; userId: string }, plan: ImportedAgentPlan): Promise<AgentRecord> {
    const now = new Date();
    const latest = plan.specs.length;
    await tx.agent.create({
      data: {
        id: plan.id,
        workspaceId: input.workspaceId,
        name: plan.specs.at(-1)!.name,
        latestVersion: latest,
        pinnedVersion: plan.pinnedVersion,
        templateOrigin: plan.templateOrigin ?? undefined,
        enabled: false,
        createdBy: input.userId,
        createdAt: now,
        updatedAt: now,
      },
    });
    await tx.agentVersion.createMany({
      data: plan.specs.map((spec, index) => ({ agentId: plan.id, version: index + 1, ...versionRowData(spec, input.userId, now) })),
    });
    if (plan.tags.length > 0) await tx.agentVersionTag.createMany({ data: plan.tags.map((t) => ({ agentId: plan.id, tag: t.tag, version: t.version, setBy: input.userId, setAt: now })) });
    const head = await tx.agent.findUniqueOrThrow({ where: { id: plan.id }, include: { versions: { where: { version: latest } } } });
    return toRecord(head, head.versions[0]!);
  }
}
