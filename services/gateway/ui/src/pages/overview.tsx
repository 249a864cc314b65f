import { useEffect, useMemo, useState } from 'react';
import { errorText } from '../api';
import { usd } from '../format';
import { ApprovalsChart, QueuesChart, SpendChart } from '../overview/load-charts';
import { duration, percent } from '../overview/figure';
import { approvalAges, END_STATUSES, failureRateOf, minuteSeries, type OverviewState } from '../overview/overview-state';
import { DurationChart, FailureRateChart, RunsChart } from '../overview/run-charts';
import { useOverview } from '../overview/use-overview';
import { useWorkspace } from '../session';
import './overview.css';

/** The windows a person may pick, minutes. */
const WINDOWS = [
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 180, label: '3 hours' },
  { minutes: 720, label: '12 hours' },
  { minutes: 1_440, label: '24 hours' },
];

/** Renders again every `ms`, so the window moves on and the approvals age with no fact; returns the count of ticks. */
function useTick(ms: number): number {
  const [ticks, setTicks] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(() => setTicks((n) => n + 1), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return ticks;
}

/**
 * The operations overview (`/overview`, decision 0036): runs per minute by
 * status, the failure rate, p95 durations, spend against budgets, queues per
 * lane and parked approvals by age, live from the workspace's facts.
 */
export function OverviewPage() {
  const { slug } = useWorkspace();
  const [windowMinutes, setWindowMinutes] = useState(60);
  return (
    <section className="overview">
      <div className="page-head">
        <h1>Overview</h1>
        <label className="inline">
          Window
          <select name="window" value={windowMinutes} onChange={(e) => setWindowMinutes(Number(e.target.value))}>
            {WINDOWS.map((w) => (
              <option key={w.minutes} value={w.minutes}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {/* Another window is another read: its state starts afresh. */}
      <OverviewBody key={windowMinutes} ws={slug} windowMinutes={windowMinutes} />
    </section>
  );
}

function OverviewBody({ ws, windowMinutes }: { ws: string; windowMinutes: number }) {
  const { state, error } = useOverview(ws, windowMinutes);
  const tick = useTick(10_000);
  if (error && !state) return <p role="alert" className="error">{errorText(error)}</p>;
  if (!state) return <p className="muted">Reading the overview…</p>;
  return <Figures state={state} tick={tick} />;
}

function Figures({ state, tick }: { state: OverviewState; tick: number }) {
  // The clock as of this change or tick: a fact of a minute that has just begun is drawn in it at once.
  const series = useMemo(() => minuteSeries(state, Date.now()), [state, tick]);
  const ages = useMemo(() => approvalAges(state, Date.now()), [state, tick]);
  const { read } = state;
  const ended = END_STATUSES.reduce((sum, s) => sum + series.totals[s], 0);
  const today = read.spend.days.length - 1;
  const tiles = [
    { id: 'ended', label: 'Runs ended', value: String(ended), raw: ended },
    { id: 'failure-rate', label: 'Failure rate', value: percent(failureRateOf(series.totals)), raw: failureRateOf(series.totals) },
    { id: 'p95', label: 'p95 duration', value: duration(read.runs.p95Ms), raw: read.runs.p95Ms },
    { id: 'queued', label: 'Queued', value: String(read.queues.reduce((sum, lane) => sum + lane.depth, 0)), raw: null },
    { id: 'awaiting-event', label: 'Waiting for a fact', value: String(read.awaitingEvent), raw: read.awaitingEvent },
    { id: 'pending', label: 'Pending approvals', value: String(state.pending.size + state.unlisted), raw: state.pending.size + state.unlisted },
    { id: 'spend', label: 'Spend today (UTC)', value: usd(read.spend.agents.reduce((sum, agent) => sum + agent.usd[today]!, 0)), raw: null },
  ];
  return (
    <>
      <p className="muted as-of">
        Counts live from the stream; p95, queues, waits and spend as read at <time dateTime={read.asOf}>{new Date(read.asOf).toLocaleTimeString()}</time>.
      </p>
      <dl className="tiles">
        {tiles.map((tile) => (
          <div key={tile.id} className="tile" data-testid={`tile-${tile.id}`} data-value={tile.raw ?? undefined}>
            <dt>{tile.label}</dt>
            <dd>{tile.value}</dd>
          </div>
        ))}
      </dl>
      <div className="charts">
        <RunsChart series={series} />
        <FailureRateChart series={series} />
        <DurationChart series={series} windowP95Ms={read.runs.p95Ms} />
        <SpendChart spend={read.spend} />
        <QueuesChart queues={read.queues} />
        <ApprovalsChart ages={ages} unlisted={state.unlisted} />
      </div>
    </>
  );
}
