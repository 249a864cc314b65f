import type { Fact, TriggerFilter } from '@switchyard/contracts';
import { compileFilter, compileKindGlob, type FactPredicate } from '@switchyard/core';

/** A pending wait as the matcher sees it: which facts of its workspace resolve it. */
export interface WaitSpec {
  kind: string;
  filter: TriggerFilter | null;
  /** Only facts with a greater seq count: those recorded after the tool was called. */
  afterSeq: number;
}

/**
 * The predicate of a wait: the trigger language exactly (a kind glob, then
 * the filter compiled by libs/core's compileFilter), and a seq after the
 * wait's. Compiled once per wait read.
 */
export function waitPredicate(wait: WaitSpec): FactPredicate {
  const kind = compileKindGlob(wait.kind);
  const filter = wait.filter ? compileFilter(wait.filter) : null;
  return (fact: Fact) => fact.seq > wait.afterSeq && kind.test(fact.kind) && (filter === null || filter(fact));
}
