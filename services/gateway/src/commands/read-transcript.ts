import { AppError, ErrorCode, type TranscriptEntry } from '@switchyard/contracts';
import type { Principal } from '../auth-ports';
import type { RunStore, TranscriptReader } from '../run-ports';
import type { TeammateStore } from '../teammate-ports';
import { getTeammate } from './teammates';

/** What reading a transcript needs. */
export interface ReadTranscriptDeps {
  runs: Pick<RunStore, 'get'>;
  transcripts: TranscriptReader;
}

/**
 * A page of a run's transcript in `seq` order, for `GET /runs/{id}/transcript`
 * and the `get_transcript` tool. The run is looked up in the caller's
 * workspace first, so another workspace's run is RUN_NOT_FOUND exactly like
 * an unknown one. `next` is the `after` of the next page; null at the end.
 */
export async function readTranscript(
  deps: ReadTranscriptDeps,
  principal: Principal,
  runId: string,
  page: { after: number; limit: number },
): Promise<{ entries: TranscriptEntry[]; next: number | null }> {
  if (!(await deps.runs.get(principal.workspaceId, runId))) {
    throw new AppError(ErrorCode.RUN_NOT_FOUND, 'no such run in this workspace', { id: runId });
  }
  const entries = await deps.transcripts.listForRun(principal.workspaceId, runId, page);
  return { entries, next: entries.length === page.limit ? entries.at(-1)!.seq : null };
}

/**
 * A page of a teammate's whole conversation — its session's transcript, every
 * turn in `seq` order, compactions and the raw entries they replaced alike
 * (decision 0052) — for `GET /teammates/{name}/transcript`. The teammate is
 * looked up in the caller's workspace first: another workspace's is
 * TEAMMATE_NOT_FOUND like an unknown one.
 */
export async function readTeammateTranscript(
  deps: { teammates: TeammateStore; transcripts: TranscriptReader },
  principal: Principal,
  name: string,
  page: { after: number; limit: number },
): Promise<{ entries: TranscriptEntry[]; next: number | null }> {
  const mate = await getTeammate(deps, principal, name);
  const entries = await deps.transcripts.listForSession(principal.workspaceId, mate.sessionId, page);
  return { entries, next: entries.length === page.limit ? entries.at(-1)!.seq : null };
}
