import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { KillSwitch } from '../components/kill-switch';
import { durationOf, shortId, usd, when } from '../format';
import { useFacts } from '../live';
import { useRowAnchor } from '../row-anchor';
import { eventIdOf, useAgents, usePendingApprovals } from '../queries';
import { useWorkspace } from '../session';
import type { AgentResponse, Fact, Run, RunFactPayload, RunStatus } from '../types';

const STATUSES: RunStatus[] = ['queued', 'running', 'awaiting_approval', 'awaiting_event', 'completed', 'failed', 'cancelled', 'dropped'];
/** How far along a status is: a late answer about an earlier status never overwrites a later one. */
const RANK: Record<RunStatus, number> = { queued: 0, running: 1, awaiting_approval: 2, awaiting_event: 2, completed: 3, failed: 3, cancelled: 3, dropped: 3 };

/** Keeps the further-along of two views of a run. */
function newer(a: Run | undefined, b: Run): Run {
  if (!a) return b;
  if (RANK[b.status] !== RANK[a.status]) return RANK[b.status] > RANK[a.status] ? b : a;
  return (b.outcome ? 1 : 0) >= (a.outcome ? 1 : 0) ? b : a;
}

/** What the fleet shows: agent, version and status are asked of the API (so a filter finds runs older than the first page); kind is matched here, on the run's trigger. */
interface RunFilter {
  agentId: string;
  /** The agent version its runs ran (decision 0046: what a pin or rollback changed); '' for any. */
  version: string;
  status: string;
  kind: string;
}

/**
 * The runs of the workspace, live: the first page from `GET /runs` (with the
 * agent and status filters), then the `agent.run.*` facts on the stream, so
 * new runs appear and statuses change without a reload; a run is read again
 * only for what its facts do not carry.
 */
function useLiveRuns(ws: string, filter: RunFilter) {
  const [rows, setRows] = useState(() => new Map<string, Run>());
  const params = new URLSearchParams({ limit: '100' });
  if (filter.agentId) params.set('agentId', filter.agentId);
  if (filter.status) params.set('status', filter.status);
  if (filter.version) params.set('agentVersion', filter.version);
  const shownRows = useRef(rows);
  shownRows.current = rows;
  const queryKey = ['runs', ws, filter.agentId, filter.version, filter.status];
  const live = useFacts(
    ws,
    (fact: Fact) => {
      if (!fact.kind.startsWith('agent.run.') || fact.subject.type !== 'run') return;
      // The fact carries the new status (and a start's time): shown at once.
      const seen = provisional(ws, fact);
      const known = shownRows.current.has(fact.subject.id);
      if (seen) {
        setRows((old) => {
          const shown = old.get(seen.id);
          return new Map(old).set(seen.id, shown ? newer(shown, { ...shown, status: seen.status, reason: seen.reason, startedAt: shown.startedAt ?? seen.startedAt }) : seen);
        });
      }
      // What the facts do not tell is read: a run's outcome once it parks or ends, and a new run
      // whose fact does not say what started it (recorded before facts carried it).
      if (!seen || RANK[seen.status] >= RANK.awaiting_approval || (!known && !seen.origin.type)) {
        void api<Run>('GET', wsPath(ws, `/runs/${fact.subject.id}`)).then((run) =>
          setRows((old) => new Map(old).set(run.id, newer(old.get(run.id), run))),
        );
      }
    },
    [queryKey],
  );
  // Read once the stream is open (useFacts), and never kept for a later visit: a first page cached
  // then would be merged into that visit's rows, and its runs would stay as they were.
  const list = useQuery({
    queryKey,
    queryFn: () => api<{ runs: Run[] }>('GET', wsPath(ws, `/runs?${params}`)).then((r) => r.runs),
    gcTime: 0,
    enabled: live,
  });
  useEffect(() => {
    if (!list.data) return;
    setRows((old) => {
      const next = new Map(old);
      for (const run of list.data) next.set(run.id, newer(next.get(run.id), run));
      return next;
    });
  }, [list.data]);
  // Newest first: run ids are UUIDv7, so they sort by creation.
  const runs = useMemo(() => [...rows.values()].sort((a, b) => (a.id < b.id ? 1 : -1)), [rows]);
  return { runs, loading: list.isPending, error: list.error };
}

/**
 * A run as its `agent.run.*` fact tells it (agent, status, its origin's type,
 * the fact that started it with its kind and subject), shown at once while
 * `GET /runs/{id}` is read for the rest once it parks or ends. Of the origin
 * the row shows the type alone, so the rest of it stays empty until then.
 */
function provisional(ws: string, fact: Fact): Run | undefined {
  const payload = fact.payload as Partial<RunFactPayload>;
  if (!payload.agentId || !payload.status || !payload.agentVersion) return undefined;
  const originType = payload.origin ?? (payload.eventId ? 'trigger' : undefined);
  return {
    id: fact.subject.id,
    workspace: ws,
    agentId: payload.agentId,
    agentVersion: payload.agentVersion,
    origin:
      originType === 'trigger' && payload.eventId
        ? { type: 'trigger', eventId: payload.eventId, agentVersion: payload.agentVersion, triggerIndex: 0 }
        : ({ type: originType, eventId: payload.eventId } as Run['origin']),
    trigger: payload.eventId && payload.trigger ? { eventId: payload.eventId, ...payload.trigger } : null,
    status: payload.status,
    reason: payload.reason ?? null,
    causedBy: fact.causedBy ?? null,
    depth: 0,
    sessionId: '',
    outcome: null,
    error: null,
    queuedAt: fact.ts,
    // A status fact is written in the transaction of its change: its time is the start's.
    startedAt: payload.status === 'running' ? fact.ts : null,
    endedAt: null,
  };
}

/** The fact that started the run, as the run keeps it (no request of its own); a run stored before it kept one links its fact by id. */
function Trigger({ run }: { run: Run }) {
  if (run.origin.type === 'manual') return <span className="muted">manual</span>;
  // A crafting turn (decision 0056): what the person said, the run being the built-in crafting agent's.
  if (run.origin.type === 'craft') return <span className="muted" data-testid="craft-turn">crafting: {run.origin.message}</span>;
  const { trigger } = run;
  if (trigger) {
    return (
      <Link href={`/events/${trigger.eventId}`}>
        <code>{trigger.kind}</code> <span className="muted">{trigger.subject.type}/{trigger.subject.id}</span>
      </Link>
    );
  }
  const eventId = eventIdOf(run);
  if (!eventId) return <span className="muted">{run.origin.type}</span>;
  return <Link href={`/events/${eventId}`}>fact {shortId(eventId)}</Link>;
}

/** One run's row; memoized, so a change to one run re-renders its row only (`now` is 0 unless it is running). */
const RunRow = memo(function RunRow({ run, agentName, now }: { run: Run; agentName: string; now: number }) {
  return (
    <tr data-run-id={run.id} data-status={run.status}>
      <td>
        <Link href={`/runs/${run.id}`}>{agentName}</Link>
      </td>
      <td className="ellipsis">
        <Trigger run={run} />
      </td>
      <td>
        <span className={`status s-${run.status}`}>{run.status}</span>
        {run.reason && (
          <span className="muted reason" data-testid="reason" title={run.status === 'dropped' ? 'dropped before it ran' : undefined}>
            {' '}
            {run.reason}
          </span>
        )}
      </td>
      <td className="hide-narrow">{durationOf(run, now)}</td>
      <td className="hide-narrow">{run.outcome?.turns ?? ''}</td>
      <td className="hide-narrow">{run.outcome ? run.outcome.tokensIn + run.outcome.tokensOut : ''}</td>
      <td>{usd(run.outcome?.costUsd)}</td>
      <td className="hide-narrow">{when(run.queuedAt)}</td>
    </tr>
  );
});

export function FleetPage() {
  const { slug } = useWorkspace();
  const agents = useAgents(slug);
  const queryClient = useQueryClient();
  const pendingKey = ['approvals', slug, 'pending'];
  const live = useFacts(
    slug,
    (fact) => {
      if (fact.kind.startsWith('approval.')) void queryClient.invalidateQueries({ queryKey: pendingKey });
    },
    [pendingKey],
  );
  const approvals = usePendingApprovals(slug, live);
  const [agentFilter, setAgentFilter] = useState('');
  const [statusFilter, setStatusFilter] = useState('');
  const [versionFilter, setVersionFilter] = useState('');
  const [kindFilter, setKindFilter] = useState('');
  // A version only means something with its agent.
  const version = agentFilter && /^[1-9][0-9]{0,9}$/.test(versionFilter) ? versionFilter : '';

  return (
    <section className="fleet">
      <div className="page-head">
        <h1>Fleet</h1>
        <Link href="/approvals" className="badge" data-testid="pending-approvals">
          {approvals.data === null ? 'approvals: n/a' : `${approvals.data?.length ?? '…'} pending approvals`}
        </Link>
        <KillSwitch />
      </div>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="filter runs">
        <label>
          Agent
          <select value={agentFilter} onChange={(e) => setAgentFilter(e.target.value)} name="agent">
            <option value="">all</option>
            {agents.data?.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.spec.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Version
          <input
            value={versionFilter}
            onChange={(e) => setVersionFilter(e.target.value)}
            name="version"
            inputMode="numeric"
            placeholder="any"
            size={4}
            disabled={!agentFilter}
            title={agentFilter ? 'runs of this version only' : 'choose an agent first'}
          />
        </label>
        <label>
          Status
          <select value={statusFilter} onChange={(e) => setStatusFilter(e.target.value)} name="status">
            <option value="">all</option>
            {STATUSES.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <label>
          Fact kind
          <input value={kindFilter} onChange={(e) => setKindFilter(e.target.value)} name="kind" placeholder="build." />
        </label>
      </form>
      {/* A new filter is a new table: its rows are the API's answer for it, then the live ones. */}
      <RunsTable key={`${agentFilter}|${version}|${statusFilter}`} ws={slug} agents={agents.data} filter={{ agentId: agentFilter, version, status: statusFilter, kind: kindFilter }} />
    </section>
  );
}

/** The fleet's table: one row per run, newest first, every row the same height. */
function RunsTable({ ws, agents, filter }: { ws: string; agents: AgentResponse[] | undefined; filter: RunFilter }) {
  const { runs, loading, error } = useLiveRuns(ws, filter);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const agentName = (id: string) => agents?.find((a) => a.id === id)?.spec.name ?? shortId(id);
  const shown = runs.filter(
    (run) =>
      (!filter.agentId || run.agentId === filter.agentId) &&
      (!filter.version || run.agentVersion === Number(filter.version)) &&
      (!filter.status || run.status === filter.status) &&
      (!filter.kind || (run.trigger?.kind ?? '').startsWith(filter.kind)),
  );
  const tbody = useRef<HTMLTableSectionElement>(null);
  useRowAnchor(tbody, shown.map((run) => run.id).join());
  return (
    <>
      {error && <p role="alert" className="error">{errorText(error)}</p>}
      <div className="table-wrap">
        <table className="runs" data-testid="runs">
          <colgroup>
            <col className="c-agent" />
            <col className="c-trigger" />
            <col className="c-status" />
            <col className="c-num hide-narrow" />
            <col className="c-num hide-narrow" />
            <col className="c-num hide-narrow" />
            <col className="c-num" />
            <col className="c-time hide-narrow" />
          </colgroup>
          <thead>
            <tr>
              <th>Agent</th>
              <th>Trigger</th>
              <th>Status</th>
              <th className="hide-narrow">Duration</th>
              <th className="hide-narrow">Turns</th>
              <th className="hide-narrow">Tokens</th>
              <th>Cost</th>
              <th className="hide-narrow">Queued</th>
            </tr>
          </thead>
          <tbody ref={tbody}>
            {shown.map((run) => (
              <RunRow key={run.id} run={run} agentName={agentName(run.agentId)} now={run.startedAt && !run.endedAt ? now : 0} />
            ))}
          </tbody>
        </table>
        {!loading && shown.length === 0 && <p className="muted">{filter.agentId || filter.version || filter.status || filter.kind ? 'No runs match.' : 'No runs yet.'}</p>}
      </div>
    </>
  );
}
