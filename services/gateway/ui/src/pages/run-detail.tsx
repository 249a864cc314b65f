import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { api, ApiError, errorText, wsPath } from '../api';
import { ApprovalCard } from '../components/approval-card';
import { BackfillBatchView } from '../components/backfill-batch';
import { CausationGraph } from '../components/causation-graph';
import { RunTimeline } from '../components/run-timeline';
import { Transcript } from '../components/transcript';
import { durationOf, shortId, usd, when } from '../format';
import { useFacts } from '../live';
import { eventIdOf, isFinished, useAgents, useFact, useTranscript } from '../queries';
import { useWorkspace } from '../session';
import type { Approval, Run, RunTrace, StoppedRun } from '../types';

export function RunDetailPage() {
  const { id } = useParams<{ id: string }>();
  const { slug, role } = useWorkspace();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [actionError, setActionError] = useState<string | undefined>();
  const [cascade, setCascade] = useState(true);
  const [stopped, setStopped] = useState<StoppedRun[] | undefined>();
  const live = useFacts(
    slug,
    (f) => {
      if (f.kind.startsWith('approval.')) void queryClient.invalidateQueries({ queryKey: ['approvals', slug, 'run', id] });
      if (f.subject.type === 'run' && f.subject.id === id) {
        void queryClient.invalidateQueries({ queryKey: ['run', slug, id] });
        void queryClient.invalidateQueries({ queryKey: ['transcript', slug, id] });
        void queryClient.invalidateQueries({ queryKey: ['trace', slug, id] });
      }
    },
    [['approvals', slug, 'run', id], ['run', slug, id], ['transcript', slug, id], ['trace', slug, id]],
  );
  const approvals = useQuery({
    queryKey: ['approvals', slug, 'run', id],
    queryFn: () => api<{ approvals: Approval[] }>('GET', wsPath(slug, `/approvals?runId=${id}&limit=200`)).then((r) => r.approvals),
    enabled: live,
  });
  const run = useQuery({ queryKey: ['run', slug, id], queryFn: () => api<Run>('GET', wsPath(slug, `/runs/${id}`)), enabled: live });
  const transcript = useTranscript(slug, id, !(run.data && isFinished(run.data)));
  const trace = useQuery({
    queryKey: ['trace', slug, id],
    queryFn: () => api<RunTrace>('GET', wsPath(slug, `/runs/${id}/trace`)),
    enabled: live,
    refetchInterval: run.data && isFinished(run.data) ? false : 2_000,
  });
  const agents = useAgents(slug);
  const fact = useFact(slug, run.data ? eventIdOf(run.data) : undefined);

  const act = async (action: 'stop' | 'retry') => {
    setActionError(undefined);
    try {
      const answer = await api<Run & { stopped?: StoppedRun[] }>('POST', wsPath(slug, `/runs/${id}/${action}`), action === 'stop' ? { cascade } : undefined);
      if (action === 'retry') return navigate(`/runs/${answer.id}`);
      const { stopped: ended, ...run } = answer;
      setStopped(ended);
      queryClient.setQueryData(['run', slug, id], run as Run);
    } catch (error) {
      setActionError(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error));
    }
  };

  if (run.error) return <p role="alert" className="error">{errorText(run.error)}</p>;
  if (!run.data) return <p className="loading">Loading…</p>;
  const r = run.data;
  const agent = agents.data?.find((a) => a.id === r.agentId);
  const canWrite = role !== 'viewer';
  return (
    <section>
      <div className="page-head">
        <h1>
          Run <code>{shortId(r.id)}</code>
        </h1>
        <span className={`status s-${r.status}`} data-testid="run-status">
          {r.status}
        </span>
        {r.reason && <span className="muted">{r.reason}</span>}
        {canWrite && !isFinished(r) && (
          <span className="row">
            <label className="inline">
              <input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> and every run it caused
            </label>
            <button type="button" className="danger" onClick={() => act('stop')}>
              Stop
            </button>
          </span>
        )}
        {canWrite && isFinished(r) && (
          <button type="button" onClick={() => act('retry')}>
            Retry
          </button>
        )}
      </div>
      {actionError && <p role="alert" className="error">{actionError}</p>}
      {stopped && stopped.length > 0 && (
        <ul className="stopped" data-testid="stopped">
          {stopped.map((entry) => (
            <li key={entry.id}>
              <Link href={`/runs/${entry.id}`}>run {shortId(entry.id)}</Link> {entry.action === 'cancelled' ? 'cancelled' : 'stops at its next step'}
              {entry.approvalsClosed > 0 ? ` · ${entry.approvalsClosed} approvals closed` : ''}
            </li>
          ))}
        </ul>
      )}
      <dl className="facts-grid">
        <dt>Agent</dt>
        <dd>
          <Link href={`/agents/${r.agentId}`}>{agent?.spec.name ?? shortId(r.agentId)}</Link> v{r.agentVersion}
        </dd>
        <dt>Started by</dt>
        <dd>
          {r.origin.type}
          {r.origin.type === 'retry' && (
            <>
              {' '}
              of <Link href={`/runs/${r.origin.retryOf}`}>{shortId(r.origin.retryOf)}</Link>
            </>
          )}
        </dd>
        <dt>Queued</dt>
        <dd>{when(r.queuedAt)}</dd>
        <dt>Duration</dt>
        <dd data-testid="run-duration">{durationOf(r, Date.now(), transcript.data?.find((entry) => entry.runId === r.id)?.at)}</dd>
        <dt>Outcome</dt>
        <dd>
          {r.outcome
            ? `${r.outcome.turns} turns · ${r.outcome.toolCalls} tool calls · ${r.outcome.tokensIn + r.outcome.tokensOut} tokens · ${usd(r.outcome.costUsd)}`
            : '—'}
        </dd>
        {r.error && (
          <>
            <dt>Error</dt>
            <dd className="error">
              {r.error.code}: {r.error.message}
            </dd>
          </>
        )}
      </dl>
      {r.origin.type === 'backfill' && (
        <>
          <h2>Backfill</h2>
          <BackfillBatchView ws={slug} agentId={r.agentId} batchId={r.origin.batchId} current={r.id} />
        </>
      )}
      <h2>Causation</h2>
      <CausationGraph ws={slug} run={r} agents={agents.data} />
      {fact.data && (
        <details>
          <summary>Triggering fact</summary>
          <pre data-testid="trigger-fact">{JSON.stringify(fact.data, null, 2)}</pre>
        </details>
      )}
      {approvals.data && approvals.data.length > 0 && (
        <>
          <h2>Approvals</h2>
          <div data-testid="run-approvals">
            {approvals.data.map((approval) => (
              <ApprovalCard key={approval.id} approval={approval} showRun={false} />
            ))}
          </div>
        </>
      )}
      {trace.data && trace.data.root.children.length > 0 && (
        <>
          <h2>Timeline</h2>
          <RunTimeline trace={trace.data} />
        </>
      )}
      <h2>Transcript</h2>
      <Transcript entries={transcript.data ?? []} />
    </section>
  );
}
