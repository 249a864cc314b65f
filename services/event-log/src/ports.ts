import type { AcceptedFact } from '@switchyard/contracts';

/** The idempotency keys claimed in Redis when facts were accepted. */
export interface IdempotencyClaims {
  /** Frees the keys of facts that will never be stored, where a key still names its fact. */
  release(facts: readonly AcceptedFact[]): Promise<number>;
}
