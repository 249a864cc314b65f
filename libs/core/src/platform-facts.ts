import type { AcceptedFact, CausedBy, Subject } from '@switchyard/contracts';
import { newId } from './ids';

/** What the platform states when it records a fact of its own (`agent.run.queued`, …). */
export interface PlatformFactInput {
  workspaceId: string;
  workspaceSlug: string;
  kind: string;
  subject: Subject;
  payload: Record<string, string | number | boolean | null>;
  causedBy?: CausedBy;
  /** Makes a repeated emission (a redelivered batch) resolve to the first fact. */
  idempotencyKey?: string;
}

/** A fact recorded by the platform itself, actor `system`, ready for `ingest`. */
export function platformFact(input: PlatformFactInput): AcceptedFact {
  const fact: AcceptedFact = {
    id: newId(),
    workspace: input.workspaceSlug,
    workspaceId: input.workspaceId,
    kind: input.kind,
    subject: input.subject,
    actor: { type: 'system', id: 'switchyard' },
    payload: input.payload,
    ts: new Date().toISOString(),
  };
  if (input.causedBy) fact.causedBy = input.causedBy;
  if (input.idempotencyKey) fact.idempotencyKey = input.idempotencyKey;
  return fact;
}
