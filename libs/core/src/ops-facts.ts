import { OPS_FACT_KINDS, OPS_SUBJECT_TYPE, type AcceptedFact, type OpsFactKind } from '@switchyard/contracts';
import type {
  DeadLettersGrowingPayload,
  ModelErrorsPayload,
  QueueBackloggedPayload,
  QueueRecoveredPayload,
  RunnerLostPayload,
} from '@switchyard/contracts';
import { newId } from './ids';

/** The payload each ops kind carries. */
export interface OpsFactPayloads {
  [OPS_FACT_KINDS.runnerLost]: RunnerLostPayload;
  [OPS_FACT_KINDS.queueBacklogged]: QueueBackloggedPayload;
  [OPS_FACT_KINDS.queueRecovered]: QueueRecoveredPayload;
  [OPS_FACT_KINDS.deadLettersGrowing]: DeadLettersGrowingPayload;
  [OPS_FACT_KINDS.modelErrors]: ModelErrorsPayload;
}

/** Longest subject id a fact takes (SubjectSchema). */
const MAX_SUBJECT_ID = 256;

/**
 * An ops fact (decision 0038): the platform's own trouble in one workspace,
 * subject `{type: "platform", id: subjectId}`, recorded by the platform
 * itself (actor `system`/`switchyard`, as the run facts are). A subject id
 * longer than a fact allows (a very long runner name) is cut; the payload
 * keeps the whole name.
 */
export function opsFact<K extends OpsFactKind>(
  workspace: { id: string; slug: string },
  kind: K,
  subjectId: string,
  payload: OpsFactPayloads[K],
  ts: Date,
): AcceptedFact {
  return {
    id: newId(),
    workspace: workspace.slug,
    workspaceId: workspace.id,
    kind,
    subject: { type: OPS_SUBJECT_TYPE, id: subjectId.slice(0, MAX_SUBJECT_ID) },
    actor: { type: 'system', id: 'switchyard' },
    payload: { ...payload },
    ts: ts.toISOString(),
  };
}
