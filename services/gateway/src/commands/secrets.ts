import { AppError, ErrorCode, SECRET_FACT_KINDS } from '@switchyard/contracts';
import { secretFact, type SecretBox } from '@switchyard/core';
import { ChangeFacts, namedAuthorOf, type UserNameLookup } from '../audited-change';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import type { SecretRecord, SecretStore } from '../secret-ports';

/** What the secret commands need. */
export interface SecretCommandDeps {
  secrets: SecretStore;
  /** Seals values with SECRETS_KEY (the routes answer 503 without it). */
  secretBox: SecretBox;
  /** Relays `secret.*` facts before the answer. */
  outbox: FactFlusher;
  /** Names the person on the facts' actor. */
  userName: UserNameLookup;
}

/**
 * Seals and stores a workspace secret, inserting or replacing it, with its
 * `secret.set` fact — which names the secret and never holds its value.
 */
export async function putSecret(deps: SecretCommandDeps, principal: Principal, name: string, value: string, correlationId: string): Promise<{ secret: SecretRecord; created: boolean }> {
  const { workspaceId } = principal;
  const sealed = deps.secretBox.seal({ workspaceId, name }, value);
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const stored = await deps.secrets.put(workspaceId, name, sealed, () => facts.record(secretFact(author, SECRET_FACT_KINDS.set, name)));
  await deps.outbox.flush(facts.ids);
  return stored;
}

/** Deletes a workspace secret with its `secret.deleted` fact; SECRET_NOT_FOUND (nothing recorded) when there is none of that name. */
export async function deleteSecret(deps: Omit<SecretCommandDeps, 'secretBox'>, principal: Principal, name: string, correlationId: string): Promise<void> {
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  if (!(await deps.secrets.delete(principal.workspaceId, name, () => facts.record(secretFact(author, SECRET_FACT_KINDS.deleted, name))))) {
    throw new AppError(ErrorCode.SECRET_NOT_FOUND, 'no such secret in this workspace', { name });
  }
  await deps.outbox.flush(facts.ids);
}
