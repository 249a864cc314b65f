import {
  RUN_CANCEL_REASONS,
  RunContextRowSchema,
  RunOriginSchema,
  RunQueueClaimRowSchema,
  RunQueueEndRowSchema,
  type RunContextRow,
  type RunQueueClaimRow,
  type RunQueueRefRow,
  type RunQueueStartedRow,
} from '@switchyard/contracts';
import { factFromRow, type FactRow } from '@switchyard/db';
import type { z } from 'zod';
import type { Claimed, Ended, RunContext, RunRef, StartedRun } from './ports';

/**
 * Parses what a SQL function returned; a shape the schema does not know throws naming the
 * function, so a function changed without its reader fails here rather than deep in a run.
 */
export function parseRow<S extends z.ZodType>(schema: S, value: unknown, fn: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new Error(`${fn} returned a value libs/runs cannot read: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** A run's context from its row (run_queue_started's, or the runner's own context read). */
export function runContextFromRow(value: unknown, workspaceSlug: string): RunContext {
  return contextOf(parseRow(RunContextRowSchema, value, 'run context'), workspaceSlug);
}

function contextOf(row: RunContextRow, workspaceSlug: string): RunContext {
  return {
    origin: RunOriginSchema.parse(row.origin),
    sessionId: row.session_id,
    fact: row.fact_row ? factFromRow(row.fact_row as FactRow, workspaceSlug) : null,
    transcriptSeq: Number(row.transcript_seq ?? 0),
    continued: row.continued,
  };
}

function toRef(row: RunQueueRefRow): RunRef {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    workspaceSlug: row.slug,
    agentId: row.agent_id,
    agentVersion: row.agent_version,
    status: row.status,
    eventId: row.event_id,
    depth: row.depth,
  };
}

function toStarted(row: RunQueueStartedRow): StartedRun {
  return {
    ...toRef(row),
    context: contextOf(row, row.slug),
    stop: row.stop_requested ? RUN_CANCEL_REASONS.stopped : row.paused ? RUN_CANCEL_REASONS.agentsPaused : null,
    leaseLapses: row.lease_lapses,
  };
}

/** A parsed claim row as the port's Claimed. */
export function claimedFromRow(row: RunQueueClaimRow): Claimed {
  return { started: row.started.map(toStarted), lost: row.lost.map(toRef) };
}

/** `run_queue_claim` / `run_queue_claim_lane`'s JSON, parsed. */
export function parseClaimed(value: unknown, fn: string): Claimed {
  return claimedFromRow(parseRow(RunQueueClaimRowSchema, value, fn));
}

/** `run_queue_end`'s JSON, parsed. */
export function parseEnded(value: unknown, fn: string): Ended {
  const row = parseRow(RunQueueEndRowSchema, value, fn);
  return { ...claimedFromRow(row), ended: row.ended };
}
