import type { RunOrigin } from '@switchyard/contracts';

/** What a delegated run is told: the objective, then the context the delegating agent gave. */
export function delegationMessage(origin: Pick<Extract<RunOrigin, { type: 'delegation' }>, 'objective' | 'context'>): string {
  return origin.context === undefined ? `Objective: ${origin.objective}` : `Objective: ${origin.objective}\n\nContext:\n${origin.context}`;
}
