import { AppError, ErrorCode, type RunTrace } from '@switchyard/contracts';
import { buildRunTrace, type SqlTraceReader } from '@switchyard/traces';
import type { Principal } from '../auth-ports';

/** What reading a run's trace needs. */
export interface ReadRunTraceDeps {
  traces: Pick<SqlTraceReader, 'read'>;
}

/**
 * A run's trace (decision 0057) for `GET /runs/{id}/trace`: the tree the
 * OTLP export sends, read in the caller's workspace — another workspace's run
 * is RUN_NOT_FOUND exactly like an unknown one.
 */
export async function readRunTrace(deps: ReadRunTraceDeps, principal: Principal, runId: string): Promise<RunTrace> {
  const input = await deps.traces.read(principal.workspaceId, runId);
  if (!input) throw new AppError(ErrorCode.RUN_NOT_FOUND, 'no such run in this workspace', { id: runId });
  return buildRunTrace(input);
}
