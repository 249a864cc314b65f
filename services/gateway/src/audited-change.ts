import type { AcceptedFact, IngestItem } from '@switchyard/contracts';
import type { ChangeAuthor } from '@switchyard/core';
import { changeAuthorOf } from './change-author';
import type { Principal } from './auth-ports';

/** A person's display name (`users.name`); null when unknown. */
export type UserNameLookup = (userId: string) => Promise<string | null>;

/**
 * The author of a governance change, its actor named as the person was named
 * when they made it (decision 0040: the audit trail says who, not an id). An
 * actor already named, or an agent, is kept as it is.
 */
export async function namedAuthorOf(principal: Principal, userName: UserNameLookup): Promise<ChangeAuthor> {
  const author = changeAuthorOf(principal);
  if (author.actor.type !== 'member' || author.actor.name) return author;
  const name = (await userName(author.actor.id))?.slice(0, 256);
  return name ? { ...author, actor: { ...author.actor, name } } : author;
}

/**
 * The facts one request's change records: handed to its store as outbox
 * items (decision 0024), their ids kept for the flush after the commit, so a
 * client that reads the audit trail next finds the change there.
 */
export class ChangeFacts {
  /** Ids of the facts recorded so far (what to flush). */
  readonly ids: string[] = [];

  constructor(private readonly correlationId: string) {}

  /** The facts as outbox items, their ids noted. */
  record(...facts: AcceptedFact[]): IngestItem[] {
    this.ids.push(...facts.map((fact) => fact.id));
    return facts.map((fact) => ({ fact, correlationId: this.correlationId }));
  }
}
