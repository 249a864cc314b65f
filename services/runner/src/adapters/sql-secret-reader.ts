import { readWorkspaceSecret, type SecretOpener, type SqlRunner } from '@switchyard/db';
import type { SecretReader } from '../loop/loop-ports';

/** Workspace secrets for runs, opened with SECRETS_KEY; without a key every read fails with a clear message. */
export class SqlSecretReader implements SecretReader {
  constructor(
    private readonly sql: SqlRunner,
    private readonly box: SecretOpener | null,
  ) {}

  async read(workspaceId: string, name: string): Promise<string | null> {
    if (!this.box) throw new Error('SECRETS_KEY is not configured on this runner: workspace secrets cannot be read');
    return readWorkspaceSecret(this.sql, this.box, workspaceId, name);
  }
}
