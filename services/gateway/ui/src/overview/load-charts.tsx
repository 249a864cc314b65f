import { useMemo } from 'react';
import type uPlot from 'uplot';
import type { OverviewLane, OverviewResponse } from '@switchyard/contracts';
import { usd, when } from '../format';
import { ChartFigure, count, FiguresTable, type FiguresRow } from './figure';
import { AGE_BUCKETS } from './overview-state';
import { bars, barValue, categoryAxis, COUNT_STEPS, fromZero, Plot, SERIES_COLOURS } from './plot';

/** Agents drawn on the spend chart (those spending most today); the table lists them all. */
const SPEND_LINES = 8;
/** Lanes drawn on the queue chart (the longest); the table lists them all. */
const QUEUE_BARS = 20;

/** One bar per category (lanes, age classes), in one colour. */
function barOptions(labels: readonly string[], label: string, colour: string): Omit<uPlot.Options, 'width' | 'height'> {
  const { scale, axis } = categoryAxis(labels);
  return {
    scales: { x: scale, y: { range: fromZero } },
    axes: [axis, { label, size: 48, incrs: COUNT_STEPS }],
    series: [{ label: '' }, { label, fill: colour, stroke: colour, paths: bars(), points: { show: false } }],
    legend: { show: false },
  };
}

/** Each agent's spend per UTC day as a share of its `perDayUsd`; 100 % is the budget. */
export function SpendChart({ spend }: { spend: OverviewResponse['spend'] }) {
  const drawn = spend.agents.filter((agent) => agent.perDayUsd !== null).slice(0, SPEND_LINES);
  const labels = spend.days.map((day) => day.slice(5));
  const data = useMemo<uPlot.AlignedData>(
    () => [spend.days.map((_, i) => i), ...drawn.map((agent) => agent.usd.map((amount) => (amount / agent.perDayUsd!) * 100)), spend.days.map(() => 100)],
    [spend],
  );
  const shape = `spend:${spend.days.join()}:${drawn.map((agent) => agent.agentId).join()}`;
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(() => {
    const { scale, axis } = categoryAxis(labels);
    return {
      scales: { x: scale, y: { range: (_u, _min, max) => [0, Math.max(max, 110)] } },
      axes: [axis, { label: '% of daily budget', size: 48 }],
      legend: { live: false },
      series: [
        {},
        ...drawn.map((agent, i) => ({ label: agent.agentName, stroke: SERIES_COLOURS[i % SERIES_COLOURS.length], width: 2, points: { show: true, size: 5 } })),
        { label: 'budget', stroke: '#b3261e', dash: [6, 4], width: 1, points: { show: false } },
      ],
    };
  }, [shape]);
  const today = spend.days.length - 1;
  const over = spend.agents.filter((agent) => agent.perDayUsd !== null && agent.usd[today]! >= agent.perDayUsd);
  return (
    <ChartFigure
      id="spend"
      title="Spend per agent per day"
      note="share of perDayUsd · UTC days"
      summary={`${count(spend.agents.length, 'agent')}; ${over.length} at or over the daily budget today (UTC).`}
      chart={<Plot options={options} data={data} shape={shape} />}
      table={
        <FiguresTable
          testId="spend-table"
          head={['Agent', 'perDayUsd', ...spend.days]}
          rows={spend.agents.map((agent) => ({
            key: agent.agentId,
            attrs: { 'data-agent-id': agent.agentId },
            cells: [agent.agentName, agent.perDayUsd === null ? '—' : usd(agent.perDayUsd), ...agent.usd.map((amount, i) => ({ value: usd(amount), attrs: { 'data-day': spend.days[i]! } }))],
          }))}
        />
      }
    />
  );
}

/** A lane as a person knows it: its agent's name, and whether it is a teammate's session. */
const laneLabel = (lane: OverviewLane) => (lane.lane.startsWith('session:') ? `${lane.agentName} (session)` : lane.agentName);

/** Runs waiting per lane, the longest queues first. */
export function QueuesChart({ queues }: { queues: OverviewLane[] }) {
  const drawn = queues.slice(0, QUEUE_BARS);
  const labels = drawn.map(laneLabel);
  const data = useMemo<uPlot.AlignedData>(() => [drawn.map((_, i) => i), drawn.map((lane) => barValue(lane.depth))], [queues]);
  const shape = `queues:${labels.join('\n')}`;
  const options = useMemo(() => barOptions(labels, 'queued runs', '#1f5fbf'), [shape]);
  const total = queues.reduce((sum, lane) => sum + lane.depth, 0);
  return (
    <ChartFigure
      id="queues"
      title="Queue depth per lane"
      note="runs queued · as last read"
      summary={queues.length === 0 ? 'No run is waiting.' : `${count(total, 'run')} waiting in ${count(queues.length, 'lane')}; the longest: ${laneLabel(queues[0]!)} with ${queues[0]!.depth}.`}
      chart={<Plot options={options} data={data} shape={shape} />}
      table={
        <FiguresTable
          testId="queues-table"
          head={['Lane', 'queued', 'oldest since']}
          rows={queues.map((lane): FiguresRow => ({
            key: lane.lane,
            attrs: { 'data-lane': lane.lane },
            cells: [{ value: laneLabel(lane), attrs: { title: lane.lane } }, { value: lane.depth, attrs: { 'data-testid': 'depth' } }, when(lane.oldestQueuedAt)],
          }))}
        />
      }
    />
  );
}

/** Pending approvals by how long they have waited; `unlisted` are newer ones the read counted without listing. */
export function ApprovalsChart({ ages, unlisted }: { ages: number[]; unlisted: number }) {
  const labels = AGE_BUCKETS.map((bucket) => bucket.label);
  const data = useMemo<uPlot.AlignedData>(() => [labels.map((_, i) => i), ages.map(barValue)], [ages]);
  const options = useMemo(() => barOptions(labels, 'approvals', '#8a5a00'), []);
  const total = ages.reduce((sum, n) => sum + n, 0) + unlisted;
  return (
    <ChartFigure
      id="approvals"
      title="Parked approvals by age"
      note="pending, by time waited"
      summary={total === 0 ? 'No approval is waiting.' : `${count(total, 'approval')} waiting; the oldest has waited ${labels[ages.findLastIndex((n) => n > 0)] ?? 'less than a minute'}.`}
      chart={<Plot options={options} data={data} shape="approvals" />}
      table={
        <FiguresTable
          testId="approvals-table"
          head={['Waiting', 'approvals']}
          rows={[
            ...labels.map((label, i) => ({ key: label, attrs: { 'data-age': label }, cells: [label, ages[i]] })),
            ...(unlisted > 0 ? [{ key: 'unlisted', cells: ['newer, not listed', unlisted] }] : []),
          ]}
          foot={{ key: 'all', cells: ['All', { value: total, attrs: { 'data-testid': 'approvals-total' } }] }}
        />
      }
    />
  );
}
