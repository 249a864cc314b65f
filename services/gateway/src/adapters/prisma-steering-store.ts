import type { RunStatus } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import type { SteeringStore } from '../ports';

/** Steering's reads on PostgreSQL: a session exists as the `runs` that carry its id. */
export class PrismaSteeringStore implements SteeringStore {
  constructor(private readonly prisma: PrismaClient) {}

  async sessionRunStatuses(workspaceId: string, sessionId: string): Promise<RunStatus[]> {
    const rows = await this.prisma.run.findMany({ where: { workspaceId, sessionId }, select: { status: true } });
    return rows.map((row) => row.status);
  }

  async userName(userId: string): Promise<string | null> {
    const row = await this.prisma.user.findUnique({ where: { id: userId }, select: { name: true } });
    return row?.name ?? null;
  }
}
