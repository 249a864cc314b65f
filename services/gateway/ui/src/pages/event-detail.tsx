import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { shortId, when } from '../format';
import { useAgents, useFact } from '../queries';
import { useWorkspace } from '../session';
import type { Run } from '../types';

/** One fact, and the runs it activated (`GET /runs?eventId=`). */
export function EventDetailPage() {
  const { id } = useParams<{ id: string }>();
  const { slug } = useWorkspace();
  const fact = useFact(slug, id);
  const agents = useAgents(slug);
  const runs = useQuery({
    queryKey: ['runs-of-event', slug, id],
    queryFn: () => api<{ runs: Run[] }>('GET', wsPath(slug, `/runs?eventId=${id}&limit=200`)).then((r) => r.runs),
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
    </section>
  );
}
