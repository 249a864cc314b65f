import type { SealedSecret } from '@switchyard/core';
import { recordFacts, type Prisma, type PrismaClient } from '@switchyard/db';
import type { FactsOf } from '../fact-ports';
import type { SecretRecord, SecretStore } from '../secret-ports';

/**
 * Workspace secrets on PostgreSQL (`workspace_secrets`): the gateway is the
 * only writer. Rows hold ciphertext only; the runner reads them through
 * `readWorkspaceSecret` in `@switchyard/db`. Every query is scoped by
 * workspace id.
 */
export class PrismaSecretStore implements SecretStore {
  constructor(private readonly prisma: PrismaClient) {}

  async put(workspaceId: string, name: string, sealed: SealedSecret, facts: FactsOf<SecretRecord>): Promise<{ secret: SecretRecord; created: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      const stored = await upsertSecret(tx, workspaceId, name, sealed);
      await recordFacts(tx, facts(stored.secret));
      return stored;
    });
  }

  async list(workspaceId: string): Promise<SecretRecord[]> {
    return this.prisma.workspaceSecret.findMany({
      where: { workspaceId },
      select: { name: true, createdAt: true, updatedAt: true },
      orderBy: { name: 'asc' },
    });
  }

  async delete(workspaceId: string, name: string, facts: FactsOf<string>): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.workspaceSecret.deleteMany({ where: { workspaceId, name } });
      if (count > 0) await recordFacts(tx, facts(name));
      return count > 0;
    });
  }
}

/** Inserts or replaces a sealed value with the transaction's client. */
async function upsertSecret(tx: Prisma.TransactionClient, workspaceId: string, name: string, sealed: SealedSecret): Promise<{ secret: SecretRecord; created: boolean }> {
  // One INSERT … ON CONFLICT, so concurrent first PUTs of a name cannot collide. `xmax = 0`
  // holds only for a row this statement inserted (an updated row carries the updating xid).
  const [row] = await tx.$queryRawUnsafe<Array<{ created_at: Date; updated_at: Date; inserted: boolean }>>(
    `INSERT INTO workspace_secrets (workspace_id, name, key_id, iv, ciphertext, tag, created_at, updated_at)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, now(), now())
     ON CONFLICT (workspace_id, name) DO UPDATE
       SET key_id = EXCLUDED.key_id, iv = EXCLUDED.iv, ciphertext = EXCLUDED.ciphertext, tag = EXCLUDED.tag, updated_at = now()
     RETURNING created_at, updated_at, (xmax = 0) AS inserted`,
    workspaceId,
    name,
    sealed.keyId,
    Buffer.from(sealed.iv),
    Buffer.from(sealed.ciphertext),
    Buffer.from(sealed.tag),
  );
  return { secret: { name, createdAt: row!.created_at, updatedAt: row!.updated_at }, created: row!.inserted };
}
