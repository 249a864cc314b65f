import type { SealedSecret } from '@switchyard/core';
import type { FactsOf } from './fact-ports';

/** A workspace secret as listed: its name and dates, never its value. */
export interface SecretRecord {
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Workspace secrets in the system of record, sealed: the store only ever
 * sees ciphertext (the routes seal with the SecretBox). Scoped by workspace id.
 */
export interface SecretStore {
  /** Inserts or replaces the sealed value, with the facts `facts` gives in its transaction; `created` says which it was. */
  put(workspaceId: string, name: string, sealed: SealedSecret, facts: FactsOf<SecretRecord>): Promise<{ secret: SecretRecord; created: boolean }>;
  /** The workspace's secrets by name. */
  list(workspaceId: string): Promise<SecretRecord[]>;
  /** Deletes it with the facts `facts` gives (its name) in its transaction; false, recording nothing, when the workspace has no secret of that name. */
  delete(workspaceId: string, name: string, facts: FactsOf<string>): Promise<boolean>;
}
