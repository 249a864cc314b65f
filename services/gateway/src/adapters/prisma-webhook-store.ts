import { WebhookMappingSchema, WebhookVerifierSchema } from '@switchyard/contracts';
import { recordFacts, type PrismaClient } from '@switchyard/db';
import type { FactsOf } from '../fact-ports';
import type { WebhookForDelivery, WebhookRecord, WebhookStore, WebhookWrite } from '../webhook-ports';

interface WebhookRow {
  name: string;
  verifier: string;
  config: unknown;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'name, verifier, config, created_at, updated_at';

/** A row as the gateway uses it; its persisted JSON parsed at the boundary. */
function toRecord(row: WebhookRow): WebhookRecord {
  return {
    name: row.name,
    verifier: WebhookVerifierSchema.parse(row.verifier),
    mapping: WebhookMappingSchema.parse(row.config),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Inbound webhooks on PostgreSQL (`webhooks`): the gateway is the only
 * writer. A signing secret is stored sealed (SecretBox), never in `config`.
 */
export class PrismaWebhookStore implements WebhookStore {
  constructor(private readonly prisma: PrismaClient) {}

  async put(write: WebhookWrite, facts: FactsOf<{ webhook: WebhookRecord; created: boolean }>) {
    return this.prisma.$transaction(async (tx) => {
      // One INSERT … ON CONFLICT, so concurrent first PUTs of a name cannot collide; `xmax = 0` only for a row it inserted.
      const [row] = await tx.$queryRawUnsafe<Array<WebhookRow & { inserted: boolean }>>(
        `INSERT INTO webhooks (workspace_id, name, verifier, config, key_id, iv, ciphertext, tag, created_at, updated_at)
         VALUES ($1::uuid, $2, $3, $4::jsonb, $5, $6, $7, $8, now(), now())
         ON CONFLICT (workspace_id, name) DO UPDATE
           SET verifier = EXCLUDED.verifier, config = EXCLUDED.config, key_id = EXCLUDED.key_id, iv = EXCLUDED.iv,
               ciphertext = EXCLUDED.ciphertext, tag = EXCLUDED.tag, updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS inserted`,
        write.workspaceId,
        write.name,
        write.verifier,
        JSON.stringify(write.mapping),
        write.sealed?.keyId ?? null,
        write.sealed ? Buffer.from(write.sealed.iv) : null,
        write.sealed ? Buffer.from(write.sealed.ciphertext) : null,
        write.sealed ? Buffer.from(write.sealed.tag) : null,
      );
      const result = { webhook: toRecord(row!), created: row!.inserted };
      await recordFacts(tx, facts(result));
      return result;
    });
  }

  async list(workspaceId: string): Promise<WebhookRecord[]> {
    const rows = await this.prisma.$queryRawUnsafe<WebhookRow[]>(`SELECT ${COLUMNS} FROM webhooks WHERE workspace_id = $1::uuid ORDER BY name`, workspaceId);
    return rows.map(toRecord);
  }

  async get(workspaceId: string, name: string): Promise<WebhookRecord | null> {
    const [row] = await this.prisma.$queryRawUnsafe<WebhookRow[]>(`SELECT ${COLUMNS} FROM webhooks WHERE workspace_id = $1::uuid AND name = $2`, workspaceId, name);
    return row ? toRecord(row) : null;
  }

  async delete(workspaceId: string, name: string, facts: FactsOf<WebhookRecord>): Promise<WebhookRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<WebhookRow[]>(`DELETE FROM webhooks WHERE workspace_id = $1::uuid AND name = $2 RETURNING ${COLUMNS}`, workspaceId, name);
      if (!row) return null;
      const deleted = toRecord(row);
      await recordFacts(tx, facts(deleted));
      return deleted;
    });
  }

  async findForDelivery(slug: string, name: string): Promise<WebhookForDelivery | null> {
    const [row] = await this.prisma.$queryRawUnsafe<Array<WebhookRow & { workspace_id: string; key_id: string | null; iv: Uint8Array | null; ciphertext: Uint8Array | null; tag: Uint8Array | null }>>(
      `SELECT w.workspace_id::text, ${COLUMNS.split(', ').map((column) => `w.${column}`).join(', ')}, w.key_id, w.iv, w.ciphertext, w.tag
         FROM webhooks w JOIN workspaces s ON s.id = w.workspace_id
        WHERE s.slug = $1 AND w.name = $2`,
      slug,
      name,
    );
    if (!row) return null;
    const sealed =
      row.key_id !== null && row.iv && row.ciphertext && row.tag
        ? { keyId: row.key_id, iv: Buffer.from(row.iv), ciphertext: Buffer.from(row.ciphertext), tag: Buffer.from(row.tag) }
        : null;
    return { workspace: { id: row.workspace_id, slug }, webhook: toRecord(row), sealed };
  }
}
