import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { shortId, when } from '../format';
import { useAgents, useFact } from '../queries';
import { useWorkspace } from '../session';
import type { AgentActivation, EventActivationsResponse, Run, TeammateActivation } from '../types';

/** Why an agent did or did not run on the fact, in a line. */
function whyLine(activation: AgentActivation): string {
  switch (activation.outcome) {
    case 'activated':
      return `activated: ${activation.runs.map((run) => run.status + (run.reason ? ` (${run.reason})` : '')).join(', ')}`;
    case 'skipped':
      return `skipped by a guard: ${activation.reason}`;
    case 'no_match':
      return activation.triggers.length === 0
        ? 'no trigger'
        : activation.triggers
            .map((t) => (t.kindMatched ? `trigger ${t.index} (${t.kind}): filter ${t.filter?.at || '(root)'} failed${t.filter && 'seen' in t.filter ? `, saw ${JSON.stringify(t.filter.seen)}` : ''}` : `trigger ${t.index}: kind ${t.kind} does not match`))
            .join('; ');
    case 'not_created_yet':
      return 'created after this fact';
    case 'pending':
      return 'the matcher has not reached this fact yet';
    case 'unrecorded':
      return 'a trigger matched; no decision was recorded';
  }
}

/** Why a teammate's watch did or did not deliver the fact (decision 0059), in a line. */
function teammateWhyLine(activation: TeammateActivation): string {
  switch (activation.outcome) {
    case 'delivered':
      return activation.runId ? 'delivered: woke a turn' : 'delivered: read by the turn already there';
    case 'skipped':
      return `not delivered: ${activation.reason}`;
    case 'no_match':
      return activation.watch.length === 0
        ? 'watches nothing'
        : activation.watch.map((w) => (w.kindMatched ? `watch ${w.index} (${w.kind}): filter ${w.filter?.at || '(root)'} failed` : `watch ${w.index}: kind ${w.kind} does not match`)).join('; ');
    case 'not_spawned_yet':
      return 'spawned after this fact';
    case 'pending':
      return 'the matcher has not reached this fact yet';
    case 'unrecorded':
      return 'a watch matched; nothing was delivered (kill switch?)';
  }
}

/** One fact, the runs it activated (`GET /runs?eventId=`), and why each agent did or did not run (`/activations`). */
export function EventDetailPage() {
  const { id } = useParams<{ id: string }>();
  const { slug } = useWorkspace();
  const fact = useFact(slug, id);
  const agents = useAgents(slug);
  const runs = useQuery({
    queryKey: ['runs-of-event', slug, id],
    queryFn: () => api<{ runs: Run[] }>('GET', wsPath(slug, `/runs?eventId=${id}&limit=200`)).then((r) => r.runs),
  });
  const activations = useQuery({
    queryKey: ['activations', slug, id],
    queryFn: () => api<EventActivationsResponse>('GET', wsPath(slug, `/events/${id}/activations`)),
    refetchInterval: (query) => (query.state.data?.agents.some((a) => a.outcome === 'pending') || query.state.data?.teammates.some((t) => t.outcome === 'pending') ? 1_000 : false),
  });
  if (fact.error) return <p role="alert" className="error">{errorText(fact.error)}</p>;
  if (!fact.data) return <p className="loading">Loading…</p>;
  const f = fact.data;
  return (
    <section>
      <div className="page-head">
        <h1>
          <code>{f.kind}</code>
        </h1>
        <span className="muted">
          seq {f.seq} · {when(f.ts)}
        </span>
      </div>
      <pre data-testid="fact-json">{JSON.stringify(f, null, 2)}</pre>
      {f.causedBy && (
        <p>
          Caused by run <Link href={`/runs/${f.causedBy.runId}`}>{shortId(f.causedBy.runId)}</Link>
        </p>
      )}
      <h2>Runs it activated</h2>
      <ul data-testid="activated-runs">
        {runs.data?.map((run) => (
          <li key={run.id}>
            <Link href={`/runs/${run.id}`}>{agents.data?.find((a) => a.id === run.agentId)?.spec.name ?? shortId(run.agentId)}</Link>{' '}
            <span className={`status s-${run.status}`}>{run.status}</span> <span className="muted">{run.origin.type}</span>
          </li>
        ))}
      </ul>
      {runs.data?.length === 0 && <p className="muted">No run was activated by this fact.</p>}
      <h2>Why (not)</h2>
      {activations.data?.firedBy && (
        <p data-testid="fired-by">
          Recorded by a {activations.data.firedBy.manual ? 'manual fire' : 'fire'} of schedule <Link href="/schedules">{activations.data.firedBy.name}</Link>
          {activations.data.firedBy.manual ? '' : ` for its slot ${activations.data.firedBy.slotAt}`}
          {activations.data.firedBy.late ? ' (late: a missed slot caught up)' : ''}.
        </p>
      )}
      <ul data-testid="activations">
        {activations.data?.agents.map((activation) => (
          <li key={activation.agentId} data-outcome={activation.outcome}>
            <Link href={`/agents/${activation.agentId}`}>{activation.agentName}</Link>
            {activation.agentVersion ? <span className="muted"> v{activation.agentVersion}</span> : null} — {whyLine(activation)}
          </li>
        ))}
      </ul>
      {(activations.data?.teammates.length ?? 0) > 0 && (
        <>
          <h2>Teammates</h2>
          <ul data-testid="teammate-activations">
            {activations.data?.teammates.map((activation) => (
              <li key={activation.teammateId} data-outcome={activation.outcome}>
                <Link href="/team">{activation.name}</Link>
                {activation.team ? <span className="muted"> ({activation.team})</span> : null} — {teammateWhyLine(activation)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
