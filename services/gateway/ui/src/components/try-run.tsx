import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { shortId } from '../format';
import { isFinished, useTranscript } from '../queries';
import type { Run, WouldHave } from '../types';
import { Transcript } from './transcript';

/**
 * One try, live: its status, what it would have done (`GET /runs/{id}/would-have`)
 * and its transcript. A try records no facts (decision 0027), so all three are
 * read again every second until the run ends.
 */
export function TryRun({ ws, runId }: { ws: string; runId: string }) {
  const run = useQuery({
    queryKey: ['run', ws, runId],
    queryFn: () => api<Run>('GET', wsPath(ws, `/runs/${runId}`)),
    refetchInterval: (query) => (query.state.data && isFinished(query.state.data) ? false : 1_000),
  });
  const live = !(run.data && isFinished(run.data));
  const wouldHave = useQuery({
    queryKey: ['would-have', ws, runId],
    queryFn: () => api<{ wouldHave: WouldHave[] }>('GET', wsPath(ws, `/runs/${runId}/would-have`)).then((r) => r.wouldHave),
    refetchInterval: live ? 1_000 : false,
  });
  const transcript = useTranscript(ws, runId, live);
  const queryClient = useQueryClient();
  // Read both once more when the run ends: the last poll may have come before its last entries.
  useEffect(() => {
    if (live) return;
    void queryClient.invalidateQueries({ queryKey: ['would-have', ws, runId] });
    void queryClient.invalidateQueries({ queryKey: ['transcript', ws, runId] });
  }, [live, queryClient, ws, runId]);
  if (run.error) return <p role="alert" className="error">{errorText(run.error)}</p>;
  return (
    <div className="try-run" data-testid="try-run" data-run-id={runId}>
      <p>
        Try <Link href={`/runs/${runId}`}>run {shortId(runId)}</Link>{' '}
        <span className={`status s-${run.data?.status ?? 'queued'}`} data-testid="try-status">
          {run.data?.status ?? '…'}
        </span>
        {run.data?.reason && <span className="muted"> {run.data.reason}</span>}
      </p>
      <h3>Would have</h3>
      <ol className="would-have" data-testid="would-have">
        {wouldHave.data?.map((call) => (
          <li key={call.toolCallId}>
            <code>{call.tool}</code> <code className="muted">{JSON.stringify(call.arguments)}</code>
          </li>
        ))}
      </ol>
      {wouldHave.data?.length === 0 && <p className="muted">{live ? 'Nothing yet.' : 'Nothing: every call it made was a read.'}</p>}
      <h3>Transcript</h3>
      <Transcript entries={transcript.data ?? []} />
    </div>
  );
}
