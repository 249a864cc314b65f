import type { RunStatus } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import type { SteeringStore } from '../mailbox-ports';

/** Users' names kept per replica: a message carries its sender's name, and a person's messages come in bursts. */
const NAMES_KEPT = 10_000;

/** Steering's reads on PostgreSQL: a session exists as the `runs` that carry its id. */
export class PrismaSteeringStore implements SteeringStore {
  /** A user's name is set when the user is made and never changed (no API renames one), so it is kept once read. */
  private readonly names = new Map<string, string>();

  constructor(private readonly prisma: PrismaClient) {}

  async sessionRunStatuses(workspaceId: string, sessionId: string): Promise<RunStatus[]> {
    const rows = await this.prisma.run.findMany({ where: { workspaceId, sessionId }, select: { status: true } });
    return rows.map((row) => row.status);
  }

  async userName(userId: string): Promise<string | null> {
    const kept = this.names.get(userId);
    if (kept !== undefined) return kept;
    const row = await this.prisma.user.findUnique({ where: { id: userId }, select: { name: true } });
    if (!row) return null;
    if (this.names.size >= NAMES_KEPT) this.names.delete(this.names.keys().next().value!);
    this.names.set(userId, row.name);
    return row.name;
  }
}
