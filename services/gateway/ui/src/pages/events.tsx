import { useState, type FormEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, ApiError, wsPath } from '../api';
import { actorLabel, when } from '../format';
import { kindMatches } from '../kind-glob';
import { useFacts } from '../live';
import { useAgents, useMembers } from '../queries';
import { useWorkspace } from '../session';
import type { Fact } from '../types';

/** Facts read per page. */
const PAGE_SIZE = 100;

/** Facts by kind glob (and subject), newest first: live facts on top, older pages below (`order=desc&before=`). */
export function EventsPage() {
  const { slug, role } = useWorkspace();
  const canPick = role !== 'viewer';
  // Facts picked for a new eval suite (decision 0058), in the order picked.
  const [picked, setPicked] = useState<string[]>([]);
  const togglePick = (id: string) => setPicked((old) => (old.includes(id) ? old.filter((p) => p !== id) : [...old, id]));
  const members = useMembers(slug);
  const [kind, setKind] = useState('');
  const [subject, setSubject] = useState('');
  const [applied, setApplied] = useState({ kind: '', subject: '' });
  const [tail, setTail] = useState<Fact[]>([]);
  const [following, setFollowing] = useState(true);
  const live = useFacts(
    slug,
    (fact) => {
      if (following) setTail((old) => (old.some((f) => f.id === fact.id) ? old : [fact, ...old].slice(0, 500)));
    },
    [['events', slug]],
  );
  const agents = useAgents(slug);
  const agentName = (id: string) => agents.data?.find((agent) => agent.id === id)?.spec.name;
  const pages = useInfiniteQuery({
    queryKey: ['events', slug, applied.kind],
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ order: 'desc', limit: String(PAGE_SIZE) });
      if (pageParam !== undefined) params.set('before', String(pageParam));
      if (applied.kind) params.set('kind', applied.kind);
      return api<{ events: Fact[]; nextCursor: number }>('GET', wsPath(slug, `/events?${params}`));
    },
    initialPageParam: undefined as number | undefined,
    // A short page is the oldest one; else the next page is before its last (oldest) seq.
    getNextPageParam: (last) => (last.events.length < PAGE_SIZE ? undefined : last.nextCursor),
    enabled: live,
  });

  const bySubject = (fact: Fact) => !applied.subject || `${fact.subject.type}/${fact.subject.id}`.includes(applied.subject);
  const read = pages.data?.pages.flatMap((page) => page.events);
  const seen = new Set(read?.map((f) => f.id));
  const newest = read?.[0]?.seq ?? 0;
  // Live facts newer than the first page, newest first, above it.
  const fresh = tail.filter((f) => !seen.has(f.id) && f.seq > newest && kindMatches(applied.kind, f.kind));
  const facts = [...fresh, ...(read ?? [])].filter(bySubject);
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
      {canPick && picked.length > 0 && (
        <p className="pick-bar" role="status" data-testid="picked">
          {picked.length} picked ·{' '}
          <Link href={`/eval-suites/new?facts=${picked.join(',')}`}>New eval suite from {picked.length === 1 ? 'this fact' : `these ${picked.length} facts`}</Link> ·{' '}
          <button type="button" onClick={() => setPicked([])}>
            Clear
          </button>
        </p>
      )}
      {pages.error && <p role="alert" className="error">{pages.error instanceof ApiError ? `${pages.error.code}: ${pages.error.message}` : String(pages.error)}</p>}
      <div className="table-wrap">
        <table data-testid="events">
          <thead>
            <tr>
              <th className="c-num">Seq</th>
              <th>Kind</th>
              <th>Subject</th>
              <th className="hide-narrow">Actor</th>
              <th className="hide-narrow">At</th>
              {canPick && (
                <th title="pick for an eval suite">Pick</th>
              )}
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
                <td className="hide-narrow ellipsis" data-testid="event-actor">
                  {actorLabel(fact.actor, { agentName, members: members.data })}
                </td>
                <td className="hide-narrow">{when(fact.ts)}</td>
                {canPick && (
                  <td>
                    <input type="checkbox" checked={picked.includes(fact.id)} onChange={() => togglePick(fact.id)} aria-label={`pick #${fact.seq} for an eval suite`} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {pages.data && facts.length === 0 && <p className="muted">No facts match.</p>}
      </div>
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          Older facts
        </button>
      )}
    </section>
  );
}
