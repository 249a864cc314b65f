import { RUN_FACT_KINDS, type RunStatus } from '@switchyard/contracts';
import { platformFact } from '@switchyard/core';
import type { IngestItem } from '@switchyard/redis';
import type { RunRef } from './ports';

/**
 * The `agent.run.<status>` fact of a run entering a status, shaped like the
 * matcher's and the gateway's (decision 0008): caused by the run itself, one
 * step deeper, so an agent never wakes on its own runs, and keyed
 * `run:<id>:<status>` so a repeat records one fact.
 */
export function runFact(run: RunRef, status: RunStatus, reason: string | null): IngestItem {
  const payload: Record<string, string | number | boolean | null> = { agentId: run.agentId, agentVersion: run.agentVersion, status, reason };
  if (run.eventId) payload.eventId = run.eventId;
  return {
    correlationId: run.id,
    fact: platformFact({
      workspaceId: run.workspaceId,
      workspaceSlug: run.workspaceSlug,
      kind: RUN_FACT_KINDS[status],
      subject: { type: 'run', id: run.id },
      payload,
      causedBy: { runId: run.id, agentId: run.agentId, depth: run.depth + 1 },
      idempotencyKey: `run:${run.id}:${status}`,
    }),
  };
}
