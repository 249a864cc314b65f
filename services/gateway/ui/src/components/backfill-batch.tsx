import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { shortId, when } from '../format';
import { eventIdOf, isFinished } from '../queries';
import type { BackfillBatch, Run } from '../types';

/** Runs of the batch listed at most (newest first); the count says how many there are. */
const LISTED = 50;
/** How often a running batch is read again: its feeder starts runs every 250 ms. */
const REREAD_MS = 2_000;

/**
 * The backfill batch a run belongs to (decision 0055), on the run's page: its
 * status (with why it stopped), how many of its facts have their run, and
 * its runs with their status — read again while it is running or any of its
 * runs is live.
 */
export function BackfillBatchView({ ws, agentId, batchId, current }: { ws: string; agentId: string; batchId: string; current: string }) {
  const batch = useQuery({
    queryKey: ['backfill', ws, batchId],
    queryFn: () => api<BackfillBatch>('GET', wsPath(ws, `/agents/${agentId}/backfills/${batchId}`)),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? REREAD_MS : false),
  });
  const runs = useQuery({
    queryKey: ['runs', ws, 'batch', batchId],
    queryFn: () => api<{ runs: Run[] }>('GET', wsPath(ws, `/runs?batchId=${batchId}&limit=${LISTED}`)).then((page) => page.runs),
    refetchInterval: (query) => (batch.data?.status === 'running' || query.state.data?.some((run) => !isFinished(run)) ? REREAD_MS : false),
  });
  if (batch.error) return <p role="alert" className="error">{errorText(batch.error)}</p>;
  if (!batch.data) return <p className="loading">Loading…</p>;
  const b = batch.data;
  return (
    <div data-testid="backfill-batch" data-status={b.status}>
      <dl className="facts-grid">
        <dt>Batch</dt>
        <dd>
          <code>{shortId(b.id)}</code>{' '}
          <span className={`status s-${b.status}`} data-testid="batch-status">
            {b.status}
          </span>
          {b.reason && (
            <span className="muted" data-testid="batch-reason">
              {' '}
              {REASONS[b.reason] ?? b.reason}
            </span>
          )}
        </dd>
        <dt>Facts</dt>
        <dd>
          <code>{b.request.kind}</code> from {when(b.request.from)} to {when(b.request.to)}
        </dd>
        <dt>Runs started</dt>
        <dd data-testid="batch-progress">
          {b.started} of {b.runs}
        </dd>
      </dl>
      {runs.data && (
        <table data-testid="batch-runs">
          <caption className="muted">{runs.data.length < b.started ? `The latest ${runs.data.length} of its ${b.started} runs` : 'Its runs'}</caption>
          <thead>
            <tr>
              <th>Run</th>
              <th>Fact</th>
              <th>Status</th>
              <th>Queued</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.map((run) => (
              <tr key={run.id} data-run-id={run.id} aria-current={run.id === current ? 'true' : undefined}>
                <td>{run.id === current ? <code>{shortId(run.id)}</code> : <Link href={`/runs/${run.id}`}>{shortId(run.id)}</Link>}</td>
                <td>
                  <Link href={`/events/${eventIdOf(run)}`}>{shortId(eventIdOf(run) ?? '')}</Link>
                </td>
                <td>
                  <span className={`status s-${run.status}`}>{run.status}</span>
                </td>
                <td>{when(run.queuedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Why a batch stopped, as a person reads it. */
const REASONS: Record<string, string> = {
  stopped: 'stopped by a person',
  agent_deleted: 'its agent was deleted',
  agent_disabled: 'its agent was disabled',
};
