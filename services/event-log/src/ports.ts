import type { AcceptedFact, Fact } from '@switchyard/contracts';

/** What became of one accepted fact when the event-log tried to store it. */
export type AppendOutcome =
  /** Stored now, with its seq. */
  | { status: 'inserted'; fact: Fact; workspaceId: string }
  /** The same id was stored before (a redelivered entry): publish it again. */
  | { status: 'existing'; fact: Fact; workspaceId: string }
  /** Another fact of the workspace holds the idempotencyKey: resolves to it. */
  | { status: 'duplicate'; originalId: string }
  /** The workspace does not exist (deleted, or a forged entry). */
  | { status: 'unknown_workspace' }
  /** PostgreSQL refuses a value of it for good (a data exception, SQLSTATE class 22). */
  | { status: 'refused'; reason: string };

/** The system of record for facts. */
export interface FactStore {
  /**
   * Stores a batch in one transaction, idempotent on id and on
   * (workspace, idempotencyKey), assigning each workspace's next seqs in
   * input order. Returns one outcome per input, in order.
   */
  append(facts: readonly AcceptedFact[]): Promise<AppendOutcome[]>;
}

/** The idempotency keys claimed in Redis when facts were accepted. */
export interface IdempotencyClaims {
  /** Frees the keys of facts that will never be stored, where a key still names its fact. */
  release(facts: readonly AcceptedFact[]): Promise<number>;
}

/** Where stored facts are announced. */
export interface FactPublisher {
  /** Publishes facts on `facts`, in order; resolves once Redis has them. */
  publish(facts: ReadonlyArray<{ fact: Fact; workspaceId: string; correlationId: string }>): Promise<void>;
}
