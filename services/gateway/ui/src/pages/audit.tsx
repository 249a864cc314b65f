import { useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { isAuditKind } from '@switchyard/contracts/src/audit-kinds';
import { api, errorText, wsPath } from '../api';
import { whatWasDone, whoDid, type AuditNames } from '../audit-words';
import { when } from '../format';
import { kindMatches } from '../kind-glob';
import { useFacts } from '../live';
import { useAgents } from '../queries';
import { useWorkspace } from '../session';
import type { AuditActorsResponse, AuditPage, Fact } from '../types';

/** The kind filter's choices: a family of audit kinds each, as the glob `GET /audit?kind=` takes. */
const KIND_CHOICES: Array<[label: string, glob: string]> = [
  ['every kind', ''],
  ['tokens', 'token.*'],
  ['people', 'member.*'],
  ['secrets', 'secret.*'],
  ['notifications', 'notifications.*'],
  ['Mattermost links', 'mattermost.*'],
  ['kill switch and settings', 'workspace.*'],
  ['agents and collaborator rules', 'agent.*'],
  ['schedules', 'schedule.*'],
];
/** How many facts that came in live the page keeps. */
const LIVE_KEPT = 500;

interface AuditFilter {
  actor: string;
  kind: string;
}

/**
 * The audit trail's pages (`GET /audit`), newest first, with what came in
 * live on the stream above them: read once the stream is open (useFacts),
 * merged by id, so a read under way never erases a live entry.
 */
function useAuditTrail(ws: string, filter: AuditFilter, onUnknownActor: () => void) {
  const [live, setLive] = useState<Fact[]>([]);
  const queryKey = ['audit', ws, filter.actor, filter.kind];
  const open = useFacts(
    ws,
    (fact) => {
      if (!isAuditKind(fact.kind)) return;
      setLive((old) => (old.some((f) => f.id === fact.id) ? old : [fact, ...old].slice(0, LIVE_KEPT)));
      if (fact.actor && !fact.actor.name) onUnknownActor();
    },
    [queryKey],
  );
  const pages = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: '50' });
      if (filter.actor) params.set('actor', filter.actor);
      if (filter.kind) params.set('kind', filter.kind);
      if (pageParam !== undefined) params.set('before', String(pageParam));
      return api<AuditPage>('GET', wsPath(ws, `/audit?${params}`));
    },
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.nextBefore ?? undefined,
    gcTime: 0,
    enabled: open,
  });
  const entries = useMemo(() => {
    const shown = live.filter((fact) => (!filter.actor || fact.actor?.id === filter.actor) && kindMatches(filter.kind, fact.kind));
    const byId = new Map([...shown, ...(pages.data?.pages.flatMap((page) => page.entries) ?? [])].map((fact) => [fact.id, fact]));
    return [...byId.values()].sort((a, b) => b.seq - a.seq);
  }, [live, pages.data, filter.actor, filter.kind]);
  return { entries, pages };
}

/** The names the page knows: everyone in the trail (`GET /audit/actors`) and the workspace's agents. */
function useAuditNames(ws: string) {
  const actors = useQuery({
    queryKey: ['audit-actors', ws],
    queryFn: () => api<AuditActorsResponse>('GET', wsPath(ws, '/audit/actors')).then((r) => r.actors),
  });
  const agents = useAgents(ws);
  const names: AuditNames = useMemo(() => {
    const people = new Map((actors.data ?? []).map((a) => [`${a.type}:${a.id}`, a.name ?? undefined]));
    const agentNames = new Map((agents.data ?? []).map((a) => [a.id, a.spec.name]));
    return {
      actor: (type, id) => people.get(`${type}:${id}`) ?? (type === 'member' ? people.get(`user:${id}`) : undefined) ?? (type === 'agent' ? agentNames.get(id) : undefined),
      agent: (id) => agentNames.get(id),
    };
  }, [actors.data, agents.data]);
  return { names, actors: actors.data ?? [] };
}

/** One entry: when, who, what (in words) and its kind. */
function AuditRow({ fact, names }: { fact: Fact; names: AuditNames }) {
  const what = whatWasDone(fact, names);
  return (
    <tr data-audit-id={fact.id} data-kind={fact.kind}>
      <td title={fact.ts}>{when(fact.ts)}</td>
      <td data-testid="audit-who">{whoDid(fact, names)}</td>
      <td data-testid="audit-what" title={what}>
        {what}
      </td>
      <td className="hide-narrow">
        <code>{fact.kind}</code>
      </td>
    </tr>
  );
}

/** The audit trail for admins: who did what to what, and when, newest first, live, by person and kind. */
export function AuditPage() {
  const { slug, role } = useWorkspace();
  return role === 'admin' ? <AuditTrail ws={slug} /> : <p role="alert">The audit trail is for admins.</p>;
}

/** The person and kind filters: everyone in the trail, and the families of audit kinds. */
function AuditFilters({ filter, onChange, actors }: { filter: AuditFilter; onChange(filter: AuditFilter): void; actors: AuditActorsResponse['actors'] }) {
  const people = [...actors].sort((a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id));
  const label = (actor: (typeof actors)[number]) => (actor.type === 'agent' ? `agent ${actor.name ?? actor.id.slice(-8)}` : (actor.name ?? `${actor.type} ${actor.id.slice(-8)}`));
  return (
    <form className="filters" aria-label="filter the audit trail" onSubmit={(event) => event.preventDefault()}>
      <label>
        Person
        <select value={filter.actor} onChange={(e) => onChange({ ...filter, actor: e.target.value })}>
          <option value="">everyone</option>
          {people.map((actor) => (
            <option key={`${actor.type}:${actor.id}`} value={actor.id}>
              {label(actor)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Kind
        <select value={filter.kind} onChange={(e) => onChange({ ...filter, kind: e.target.value })}>
          {KIND_CHOICES.map(([text, glob]) => (
            <option key={glob} value={glob}>
              {text}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}

function AuditTrail({ ws }: { ws: string }) {
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<AuditFilter>({ actor: '', kind: '' });
  const { names, actors } = useAuditNames(ws);
  // An actor the page cannot name (someone new, recorded without a name): the list of names is read again.
  const { entries, pages } = useAuditTrail(ws, filter, () => void queryClient.invalidateQueries({ queryKey: ['audit-actors', ws] }));
  return (
    <section>
      <div className="page-head">
        <h1>Audit</h1>
      </div>
      <AuditFilters filter={filter} onChange={setFilter} actors={actors} />
      {pages.error && <p role="alert" className="error">{errorText(pages.error)}</p>}
      <div className="table-wrap">
        <table data-testid="audit">
          <colgroup>
            <col className="c-time" />
            <col className="c-agent" />
            <col />
            <col className="c-status hide-narrow" />
          </colgroup>
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th className="hide-narrow">Kind</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((fact) => (
              <AuditRow key={fact.id} fact={fact} names={names} />
            ))}
          </tbody>
        </table>
        {pages.data && entries.length === 0 && <p className="muted">Nothing in the audit trail matches.</p>}
      </div>
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {pages.isFetchingNextPage ? 'Loading…' : 'Older entries'}
        </button>
      )}
    </section>
  );
}
