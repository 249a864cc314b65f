import { recordFacts, type Prisma, type PrismaClient } from '@switchyard/db';
import type { AgentGuard, AgentRecord } from '../agent-ports';
import type { FactsOf } from '../fact-ports';
import type { AgentVersionStore, DeleteTagResult, PinResult, PutTagResult, TagRecord } from '../version-ports';
import { guardLocked, lockHead, readAgent } from './prisma-agent-store';

type Tx = Prisma.TransactionClient;

const tagsOf = (tx: Tx, agentId: string): Promise<TagRecord[]> =>
  tx.agentVersionTag.findMany({ where: { agentId }, orderBy: { tag: 'asc' }, select: { tag: true, version: true, setBy: true, setAt: true } });

/** Pins and tags on PostgreSQL (`agents.pinned_version`, `agent_version_tags`). Versions are dense, so 1..latest exist. */
export class PrismaAgentVersionStore implements AgentVersionStore {
  constructor(private readonly prisma: PrismaClient) {}

  async pin(input: { workspaceId: string; id: string; version: number | null }, facts: FactsOf<{ agent: AgentRecord; changed: boolean }>, guard?: AgentGuard): Promise<PinResult> {
    return this.prisma.$transaction(async (tx): Promise<PinResult> => {
      const head = await lockHead(tx, input.workspaceId, input.id);
      if (!head) return { ok: false, reason: 'not_found' };
      if (input.version !== null && input.version > head.latest) return { ok: false, reason: 'version_not_found', latest: head.latest };
      await guardLocked(tx, input.id, guard);
      const changed = head.pinned !== input.version;
      if (changed) await tx.agent.update({ where: { id: input.id }, data: { pinnedVersion: input.version, updatedAt: new Date() } });
      const result = { agent: await readAgent(tx, input.id), changed };
      await recordFacts(tx, facts(result));
      return { ok: true, ...result };
    });
  }

  async listTags(workspaceId: string, id: string): Promise<TagRecord[] | null> {
    const agent = await this.prisma.agent.findFirst({ where: { id, workspaceId, deletedAt: null }, select: { id: true } });
    return agent ? tagsOf(this.prisma, id) : null;
  }

  async putTag(
    input: { workspaceId: string; id: string; tag: string; version: number; userId: string; maxTags: number },
    facts: FactsOf<{ agent: AgentRecord; previousVersion: number | null }>,
  ): Promise<PutTagResult> {
    return this.prisma.$transaction(async (tx): Promise<PutTagResult> => {
      const head = await lockHead(tx, input.workspaceId, input.id);
      if (!head) return { ok: false, reason: 'not_found' };
      if (input.version > head.latest) return { ok: false, reason: 'version_not_found', latest: head.latest };
      const existing = await tx.agentVersionTag.findUnique({ where: { agentId_tag: { agentId: input.id, tag: input.tag } } });
      if (!existing && (await tx.agentVersionTag.count({ where: { agentId: input.id } })) >= input.maxTags) return { ok: false, reason: 'too_many' };
      const agent = await readAgent(tx, input.id);
      if (existing?.version === input.version) return { ok: true, agent, tags: await tagsOf(tx, input.id), previousVersion: input.version, changed: false };
      const row = { version: input.version, setBy: input.userId, setAt: new Date() };
      await tx.agentVersionTag.upsert({ where: { agentId_tag: { agentId: input.id, tag: input.tag } }, create: { agentId: input.id, tag: input.tag, ...row }, update: row });
      const previousVersion = existing?.version ?? null;
      await recordFacts(tx, facts({ agent, previousVersion }));
      return { ok: true, agent, tags: await tagsOf(tx, input.id), previousVersion, changed: true };
    });
  }

  async deleteTag(input: { workspaceId: string; id: string; tag: string; version: number }, facts: FactsOf<{ agent: AgentRecord; version: number }>): Promise<DeleteTagResult> {
    return this.prisma.$transaction(async (tx): Promise<DeleteTagResult> => {
      const head = await lockHead(tx, input.workspaceId, input.id);
      if (!head) return { ok: false, reason: 'not_found' };
      const { count } = await tx.agentVersionTag.deleteMany({ where: { agentId: input.id, tag: input.tag, version: input.version } });
      if (count === 0) return { ok: false, reason: 'tag_not_found' };
      const agent = await readAgent(tx, input.id);
      await recordFacts(tx, facts({ agent, version: input.version }));
      return { ok: true, agent, tags: await tagsOf(tx, input.id), version: input.version };
    });
  }
}
