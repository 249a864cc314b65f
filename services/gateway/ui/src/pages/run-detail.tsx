import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { api, ApiError, errorText, wsPath } from '../api';
import { ApprovalCard } from '../components/approval-card';
import { Transcript } from '../components/transcript';
import { durationOf, shortId, usd, when } from '../format';
import { useFacts } from '../live';
import { eventIdOf, isFinished, useAgents, useFact } from '../queries';
import { useWorkspace } from '../session';
import type { Approval, Run, StoppedRun, TranscriptEntry } from '../types';

/** Every transcript entry of a run, page by page. */
async function readTranscript(ws: string, runId: string): Promise<TranscriptEntry[]> {
  const entries: TranscriptEntry[] = [];
  let after = 0;
  for (;;) {
    const page = await api<{ entries: TranscriptEntry[]; next: number | null }>('GET', wsPath(ws, `/runs/${runId}/transcript?after=${after}&limit=500`));
    entries.push(...page.entries);
    if (page.next === null) return entries;
    after = page.next;
  }
}

/** The runs above this one: what caused it, and what caused that, up to the first. */
function useCausation(ws: string, run: Run | undefined) {
  return useQuery({
    queryKey: ['causation', ws, run?.id],
    enabled: run !== undefined,
    queryFn: async () => {
      const chain: Run[] = [];
      let parent = run?.causedBy?.runId;
      while (parent && chain.length < 10) {
        const above = await api<Run>('GET', wsPath(ws, `/runs/${parent}`)).catch(() => undefined);
        if (!above) break;
        chain.unshift(above);
        parent = above.causedBy?.runId;
      }
      return chain;
    },
  });
}

export function RunDetailPage() {
  const { id } = useParams<{ id: string }>();
  const { slug, role } = useWorkspace();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [actionError, setActionError] = useState<string | undefined>();
  const [cascade, setCascade] = useState(true);
  const [stopped, setStopped] = useState<StoppedRun[] | undefined>();
  const approvals = useQuery({
    queryKey: ['approvals', slug, 'run', id],
    queryFn: () => api<{ approvals: Approval[] }>('GET', wsPath(slug, `/approvals?runId=${id}&limit=200`)).then((r) => r.approvals),
  });
  const run = useQuery({ queryKey: ['run', slug, id], queryFn: () => api<Run>('GET', wsPath(slug, `/runs/${id}`)) });
  // The transcript is read again while the run is live: entries are not facts, so the stream does not carry them.
  const transcript = useQuery({
    queryKey: ['transcript', slug, id],
    queryFn: () => readTranscript(slug, id),
    refetchInterval: run.data && isFinished(run.data) ? false : 1_000,
  });
  const agents = useAgents(slug);
  const fact = useFact(slug, run.data ? eventIdOf(run.data) : undefined);
  const causation = useCausation(slug, run.data);
  useFacts(slug, (f) => {
    if (f.kind.startsWith('approval.')) void queryClient.invalidateQueries({ queryKey: ['approvals', slug, 'run', id] });
    if (f.subject.type === 'run' && f.subject.id === id) {
      void queryClient.invalidateQueries({ queryKey: ['run', slug, id] });
      void queryClient.invalidateQueries({ queryKey: ['transcript', slug, id] });
    }
  });

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
        <dd>{durationOf(r)}</dd>
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
      <h2>Causation</h2>
      <ol className="causation" data-testid="causation">
        {causation.data?.map((above) => (
          <li key={above.id}>
            <Link href={`/runs/${above.id}`}>run {shortId(above.id)}</Link> <span className="muted">{above.status}</span>
          </li>
        ))}
        {fact.data && (
          <li>
            fact <Link href={`/events/${fact.data.id}`}><code>{fact.data.kind}</code></Link>{' '}
            <span className="muted">
              {fact.data.subject.type}/{fact.data.subject.id} · seq {fact.data.seq}
            </span>
          </li>
        )}
        <li aria-current="true">
          <strong>this run</strong> <span className="muted">depth {r.depth}</span>
        </li>
      </ol>
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
      <h2>Transcript</h2>
      <Transcript entries={transcript.data ?? []} />
    </section>
  );
}
