import type { SqlRunner } from './sql-pool';

/**
 * A stored secret row as the opener needs it. Structurally the same as
 * `SealedSecret` in `@switchyard/core`, so this lib needs no dependency on it.
 */
export interface StoredSealedSecret {
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

/**
 * What decrypts a row: a `SecretBox` of `@switchyard/core`, built from
 * `SECRETS_KEY` and `SECRETS_KEY_PREVIOUS`. It throws when a row does not open.
 */
export interface SecretOpener {
  open(scope: { workspaceId: string; name: string }, sealed: StoredSealedSecret): string;
}

/** Anything that runs raw SQL: the Prisma client, a transaction client, or a SqlPool. */
export type RawQueryClient = Pick<SqlRunner, '$queryRawUnsafe'>;

interface SealedRow {
  name: string;
  key_id: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

const SEALED_COLUMNS = 'name, key_id, iv, ciphertext, tag';

function openRow(box: SecretOpener, workspaceId: string, row: SealedRow): string {
  return box.open(
    { workspaceId, name: row.name },
    { keyId: row.key_id, iv: Buffer.from(row.iv), ciphertext: Buffer.from(row.ciphertext), tag: Buffer.from(row.tag) },
  );
}

/**
 * The plaintext of one workspace secret, or null when the workspace has no
 * secret of that name. The gateway writes `workspace_secrets`; the runner
 * reads through this (model keys, MCP server headers). Throws what the box
 * throws when the row cannot be opened (its key is not configured, or it was
 * tampered with): a secret that exists but cannot be read is not "absent".
 */
export async function readWorkspaceSecret(
  prisma: RawQueryClient,
  box: SecretOpener,
  workspaceId: string,
  name: string,
): Promise<string | null> {
  const [row] = await prisma.$queryRawUnsafe<SealedRow[]>(
    `SELECT ${SEALED_COLUMNS} FROM workspace_secrets WHERE workspace_id = $1::uuid AND name = $2`,
    workspaceId,
    name,
  );
  return row ? openRow(box, workspaceId, row) : null;
}

/**
 * The plaintexts of several secrets of a workspace in one query, by name;
 * names the workspace has no secret for are absent from the map. For a run
 * that needs every secret its spec references (and their values to redact).
 */
export async function readWorkspaceSecrets(
  prisma: RawQueryClient,
  box: SecretOpener,
  workspaceId: string,
  names: readonly string[],
): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  if (names.length === 0) return values;
  const rows = await prisma.$queryRawUnsafe<SealedRow[]>(
    `SELECT ${SEALED_COLUMNS} FROM workspace_secrets WHERE workspace_id = $1::uuid AND name = ANY($2::text[])`,
    workspaceId,
    [...new Set(names)],
  );
  for (const row of rows) values.set(row.name, openRow(box, workspaceId, row));
  return values;
}
