import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** Height of every chart's plotting area with its axes, CSS px. */
const PLOT_HEIGHT = 220;

/**
 * One uPlot chart, as wide as its box. It is made once per `shape` (a new
 * set of series or categories makes it anew) and given new data in place,
 * so a fact that changes a figure redraws the canvas without rebuilding it.
 * The canvas is hidden from assistive technology: every chart has its
 * figures in a table beside it.
 */
export function Plot({ options, data, shape }: { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData; shape: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot>(undefined);
  const latest = useRef({ options, data });
  latest.current = { options, data };

  useEffect(() => {
    const element = box.current!;
    const made = new uPlot({ ...latest.current.options, width: element.clientWidth || 300, height: PLOT_HEIGHT }, latest.current.data, element);
    chart.current = made;
    const resized = new ResizeObserver(() => {
      if (element.clientWidth > 0 && element.clientWidth !== made.width) made.setSize({ width: element.clientWidth, height: PLOT_HEIGHT });
    });
    resized.observe(element);
    return () => {
      resized.disconnect();
      made.destroy();
      chart.current = undefined;
    };
  }, [shape]);

  useEffect(() => {
    chart.current?.setData(data);
  }, [data]);

  return <div ref={box} className="plot" aria-hidden="true" />;
}

/** Fill and line colours of the run statuses, as the fleet's status badges. */
export const STATUS_COLOURS = {
  completed: '#1e7a3c',
  failed: '#b3261e',
  cancelled: '#8a8a84',
  dropped: '#c77700',
} as const;

/** A palette for one line per agent, distinct enough for eight. */
export const SERIES_COLOURS = ['#1f5fbf', '#b3261e', '#1e7a3c', '#7b4bb8', '#c77700', '#0f7c86', '#a23b72', '#5b5b55'];

/** Bars, centred on their x value. */
export const bars = (): uPlot.Series.PathBuilder => uPlot.paths.bars!({ size: [0.7, 48], align: 0 });

/** About the width of a character of an axis label (uPlot's 12 px system font), and the room between two labels, CSS px. */
const LABEL_CHAR_PX = 6.2;
const LABEL_GAP_PX = 8;

/**
 * An x axis of categories (lanes, age classes, days): the values are the
 * indexes 0…n-1, shown by their labels, with half a step of room each side.
 */
export function categoryAxis(labels: readonly string[]): { scale: uPlot.Scale; axis: uPlot.Axis } {
  return {
    scale: { time: false, range: () => [-0.5, Math.max(labels.length, 1) - 0.5] },
    axis: {
      splits: () => labels.map((_, i) => i),
      values: (self, splits) => {
        // On a narrow chart (a phone) every k-th label only, so they never overlap; the table has them all.
        const perCategory = self.bbox.width / uPlot.pxRatio / Math.max(labels.length, 1);
        const widest = Math.max(...labels.map((label) => label.length), 1) * LABEL_CHAR_PX + LABEL_GAP_PX;
        const every = Math.max(1, Math.ceil(widest / Math.max(perCategory, 1)));
        return splits.map((i) => (i % every === 0 ? (labels[i] ?? '') : ''));
      },
      grid: { show: false },
      gap: 4,
    },
  };
}

/** Tick steps of an axis of counts: whole numbers only. */
export const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000];

/** A bar's value: nothing drawn for a zero, not a flat line. */
export const barValue = (n: number): number | null => (n === 0 ? null : n);

/** A y scale from zero to a tenth above the highest value (at least 1), so the tallest bar or point is not cut at the top. */
export const fromZero: uPlot.Range.Function = (_self, _min, max) => [0, Math.max(max * 1.1, 1)];
