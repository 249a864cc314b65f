import { useMemo } from 'react';
import type uPlot from 'uplot';
import type { RunEndCounts } from '@switchyard/contracts';
import { ChartFigure, count, duration, FiguresTable, localMinute, percent } from './figure';
import { END_STATUSES, failureRateOf, type MinuteSeries } from './overview-state';
import { bars, barValue, COUNT_STEPS, fromZero, Plot, STATUS_COLOURS } from './plot';

/** The window's minutes with half a minute of room each side, so the first and last bars show whole. */
const MINUTE_SCALE: uPlot.Scale = { range: (_u, min, max) => [min - 30, max + 30] };

/** Stacked from the bottom in this order; drawn top first, each bar over the ones above it. */
const STACK = END_STATUSES;
const DRAWN = [...STACK].reverse();

/** Runs ended per minute, stacked by status (a bar's height is the minute's total). */
export function RunsChart({ series }: { series: MinuteSeries }) {
  // Series i holds the sum of its status and those below it, so drawing the tallest first stacks them.
  const data = useMemo<uPlot.AlignedData>(
    () => [series.x, ...DRAWN.map((status) => series.counts.map((c) => barValue(STACK.slice(0, STACK.indexOf(status) + 1).reduce((sum, s) => sum + c[s], 0))))],
    [series],
  );
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(
    () => ({
      scales: { x: MINUTE_SCALE, y: { range: fromZero } },
      axes: [{}, { label: 'runs', size: 48, incrs: COUNT_STEPS }],
      legend: { live: false },
      series: [
        {},
        ...DRAWN.map((status) => ({
          label: status,
          fill: STATUS_COLOURS[status],
          stroke: STATUS_COLOURS[status],
          paths: bars(),
          points: { show: false },
        })),
      ],
    }),
    [],
  );
  const { totals } = series;
  const ended = END_STATUSES.reduce((sum, s) => sum + totals[s], 0);
  return (
    <ChartFigure
      id="runs"
      title="Runs ended per minute"
      note="by status · local time"
      summary={`${count(ended, 'run')} ended in the window: ${END_STATUSES.map((s) => `${totals[s]} ${s}`).join(', ')}.`}
      chart={<Plot options={options} data={data} shape="runs" />}
      table={<RunsTable series={series} />}
    />
  );
}

function RunsTable({ series }: { series: MinuteSeries }) {
  const statusCells = (counts: RunEndCounts) => END_STATUSES.map((status) => ({ value: counts[status], attrs: { 'data-status': status } }));
  const rows = series.x
    .map((x, i) => ({ x, counts: series.counts[i]! }))
    .filter(({ counts }) => END_STATUSES.some((s) => counts[s] > 0))
    .map(({ x, counts }) => ({ key: x, attrs: { 'data-minute': new Date(x * 1000).toISOString() }, cells: [localMinute(x), ...statusCells(counts)] }));
  return <FiguresTable testId="runs-table" head={['Minute', ...END_STATUSES]} rows={rows} foot={{ key: 'window', attrs: { 'data-testid': 'runs-totals' }, cells: ['Window', ...statusCells(series.totals)] }} />;
}

/** A line over the window's minutes (gaps where a minute has no value), with its points. */
function lineOptions(label: string, colour: string, unit: string, range: uPlot.Scale['range']): Omit<uPlot.Options, 'width' | 'height'> {
  return {
    scales: { x: MINUTE_SCALE, y: { range } },
    axes: [{}, { label: unit, size: 48 }],
    series: [{}, { label, stroke: colour, width: 2, points: { show: true, size: 5 }, spanGaps: false }],
    legend: { live: false },
  };
}

/** Failed runs' share of those that ran (completed + failed), per minute. */
export function FailureRateChart({ series }: { series: MinuteSeries }) {
  const rates = useMemo(() => series.counts.map((c) => failureRateOf(c)), [series]);
  const data = useMemo<uPlot.AlignedData>(() => [series.x, rates.map((r) => (r === null ? null : r * 100))], [series, rates]);
  const options = useMemo(() => lineOptions('failure rate', STATUS_COLOURS.failed, '%', () => [0, 100]), []);
  const windowRate = failureRateOf(series.totals);
  const rows = series.x.map((x, i) => ({ x, rate: rates[i]!, counts: series.counts[i]! })).filter(({ rate }) => rate !== null);
  return (
    <ChartFigure
      id="failure-rate"
      title="Failure rate"
      note="failed ÷ (completed + failed) · per minute"
      summary={`Failure rate over the window: ${percent(windowRate)}.`}
      chart={<Plot options={options} data={data} shape="failure-rate" />}
      table={
        <FiguresTable
          testId="failure-rate-table"
          head={['Minute', 'failed', 'ran', 'rate']}
          rows={rows.map(({ x, rate, counts }) => ({ key: x, cells: [localMinute(x), counts.failed, counts.completed + counts.failed, percent(rate)] }))}
          foot={{
            key: 'window',
            cells: ['Window', series.totals.failed, series.totals.completed + series.totals.failed, { value: percent(windowRate), attrs: { 'data-testid': 'failure-rate-window' } }],
          }}
        />
      }
    />
  );
}

/** The p95 of run durations per minute, as last read (a fact does not carry a run's duration). */
export function DurationChart({ series, windowP95Ms }: { series: MinuteSeries; windowP95Ms: number | null }) {
  const data = useMemo<uPlot.AlignedData>(() => [series.x, series.counts.map((c) => (c.p95Ms === null ? null : c.p95Ms / 1000))], [series]);
  const options = useMemo(() => lineOptions('p95', '#7b4bb8', 's', fromZero), []);
  const rows = series.x.map((x, i) => ({ x, p95: series.counts[i]!.p95Ms })).filter(({ p95 }) => p95 !== null);
  return (
    <ChartFigure
      id="duration"
      title="p95 run duration"
      note="completed and failed runs · as last read"
      summary={`95 % of the window's runs took at most ${duration(windowP95Ms)}.`}
      chart={<Plot options={options} data={data} shape="duration" />}
      table={
        <FiguresTable
          testId="duration-table"
          head={['Minute', 'p95']}
          rows={rows.map(({ x, p95 }) => ({ key: x, cells: [localMinute(x), duration(p95)] }))}
          foot={{ key: 'window', cells: ['Window', { value: duration(windowP95Ms), attrs: { 'data-testid': 'duration-window' } }] }}
        />
      }
    />
  );
}
