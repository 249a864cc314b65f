import type { ReactNode } from 'react';

/**
 * A chart with its figures as a table (decision 0036): the canvas for the
 * eye, the table — behind a native disclosure, in the page whether open or
 * not — for a screen reader, a keyboard, a copy and a test. `summary` says
 * the chart's point in one sentence (the figure's accessible description).
 */
export function ChartFigure({ id, title, note, summary, chart, table }: { id: string; title: string; note: string; summary: string; chart: ReactNode; table: ReactNode }) {
  return (
    <figure className="chart" data-testid={`chart-${id}`} aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`}>
      <figcaption>
        <h2 id={`${id}-title`}>{title}</h2>
        <span className="muted">{note}</span>
      </figcaption>
      <p id={`${id}-summary`} className="chart-summary">
        {summary}
      </p>
      {chart}
      <details>
        <summary>Table</summary>
        <div className="table-wrap">{table}</div>
      </details>
    </figure>
  );
}

/** A table cell: its content, or its content with attributes (the `data-*` a test or a script finds it by). */
export type Cell = ReactNode | { value: ReactNode; attrs: Record<string, string> };

/** A row of a figures table; `attrs` go on the `tr`. */
export interface FiguresRow {
  key: string | number;
  attrs?: Record<string, string>;
  cells: Cell[];
}

const isAttributed = (cell: Cell): cell is { value: ReactNode; attrs: Record<string, string> } =>
  typeof cell === 'object' && cell !== null && 'attrs' in cell && 'value' in cell;

function FiguresRowOf({ row, heading }: { row: FiguresRow; heading: boolean }) {
  return (
    <tr {...row.attrs}>
      {row.cells.map((cell, i) => {
        const { value, attrs } = isAttributed(cell) ? cell : { value: cell, attrs: {} };
        return heading && i === 0 ? <th key={i} {...attrs}>{value}</th> : <td key={i} {...attrs}>{value}</td>;
      })}
    </tr>
  );
}

/** A chart's figures as a table: a head, a row per point, and the window's total as its foot (its first cell a heading). */
export function FiguresTable({ testId, head, rows, foot }: { testId: string; head: string[]; rows: FiguresRow[]; foot?: FiguresRow }) {
  return (
    <table className="figures" data-testid={testId}>
      <thead>
        <tr>
          {head.map((label) => (
            <th key={label}>{label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <FiguresRowOf key={row.key} row={row} heading={false} />
        ))}
      </tbody>
      {foot && (
        <tfoot>
          <FiguresRowOf row={foot} heading />
        </tfoot>
      )}
    </table>
  );
}

/** A share as a percentage with one decimal; an em dash when there is nothing to divide. */
export function percent(share: number | null): string {
  return share === null ? '—' : `${(share * 100).toFixed(1)} %`;
}

/** A duration in ms as `850 ms`, `4.2 s` or `3.5 min`; an em dash when unknown. */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** A minute start (seconds since the epoch, UTC) in the browser's local time, `14:05`. */
export function localMinute(seconds: number): string {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}


/** `1 run`, `3 runs`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
