import { CRAFTING_AGENT_NAME } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import type { CraftingStore } from '../craft-ports';

/** The built-in crafting agent and its conversations on PostgreSQL (decision 0056); every query scoped by workspace. */
export class PrismaCraftingStore implements CraftingStore {
  constructor(private readonly prisma: Pick<PrismaClient, 'agent' | 'run'>) {}

  async craftingAgentId(workspaceId: string): Promise<string | null> {
    const agent = await this.prisma.agent.findFirst({ where: { workspaceId, name: CRAFTING_AGENT_NAME, deletedAt: null }, select: { id: true } });
    return agent?.id ?? null;
  }

  async conversationOwner(workspaceId: string, sessionId: string): Promise<string | null> {
    const first = await this.prisma.run.findFirst({ where: { workspaceId, sessionId, originType: 'craft' }, orderBy: { queuedAt: 'asc' }, select: { origin: true } });
    const userId = (first?.origin as { userId?: unknown } | undefined)?.userId;
    return typeof userId === 'string' ? userId : null;
  }
}
