import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, ApiError, wsPath } from '../api';
import { actorLabel, when } from '../format';
import { useMembers } from '../queries';
import { kindMatches } from '../kind-glob';
import { useFacts } from '../live';
import { useWorkspace } from '../session';
import type { Fact } from '../types';

/** Facts by kind glob (and subject), oldest first from the API, with the live tail below. */
export function EventsPage() {
  const { slug } = useWorkspace();
  const members = useMembers(slug);
  const [kind, setKind] = useState('');
  const [subject, setSubject] = useState('');
  const [applied, setApplied] = useState({ kind: '', subject: '' });
  const [tail, setTail] = useState<Fact[]>([]);
  const [following, setFollowing] = useState(true);
  const live = useFacts(
    slug,
    (fact) => {
      if (following) setTail((old) => (old.some((f) => f.id === fact.id) ? old : [...old, fact].slice(-500)));
    },
    [['events', slug]],
  );
  const page = useQuery({
    queryKey: ['events', slug, applied.kind],
    queryFn: () => api<{ events: Fact[] }>('GET', wsPath(slug, `/events?limit=500${applied.kind ? `&kind=${encodeURIComponent(applied.kind)}` : ''}`)).then((r) => r.events),
    enabled: live,
  });

  const bySubject = (fact: Fact) => !applied.subject || `${fact.subject.type}/${fact.subject.id}`.includes(applied.subject);
  const seen = new Set(page.data?.map((f) => f.id));
  const facts = [...(page.data ?? []), ...tail.filter((f) => !seen.has(f.id) && kindMatches(applied.kind, f.kind))].filter(bySubject);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setApplied({ kind: kind.trim(), subject: subject.trim() });
  };

  return (
    <section>
      <div className="page-head">
        <h1>Events</h1>
        <label className="inline">
          <input type="checkbox" checked={following} onChange={(e) => setFollowing(e.target.checked)} /> live tail
        </label>
      </div>
      <form className="filters" onSubmit={apply} aria-label="filter events">
        <label>
          Kind glob
          <input name="kind" value={kind} onChange={(e) => setKind(e.target.value)} placeholder="agent.run.*" />
        </label>
        <label>
          Subject
          <input name="subject" value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="run/…" />
        </label>
        <button type="submit">Apply</button>
      </form>
      {page.error && <p role="alert" className="error">{page.error instanceof ApiError ? `${page.error.code}: ${page.error.message}` : String(page.error)}</p>}
      <div className="table-wrap">
        <table data-testid="events">
          <thead>
            <tr>
              <th className="c-num">Seq</th>
              <th>Kind</th>
              <th>Subject</th>
              <th className="hide-narrow">Actor</th>
              <th className="hide-narrow">At</th>
            </tr>
          </thead>
          <tbody>
            {facts.map((fact) => (
              <tr key={fact.id} data-event-id={fact.id}>
                <td>{fact.seq}</td>
                <td>
                  <Link href={`/events/${fact.id}`}>
                    <code>{fact.kind}</code>
                  </Link>
                </td>
                <td className="ellipsis">
                  {fact.subject.type}/{fact.subject.id}
                </td>
                <td className="hide-narrow ellipsis">{fact.actor ? actorLabel(fact.actor, members.data) : ''}</td>
                <td className="hide-narrow">{when(fact.ts)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {page.data && facts.length === 0 && <p className="muted">No facts match.</p>}
      </div>
    </section>
  );
}
