import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** Colours with at least 3:1 contrast on white (WCAG non-text contrast), told apart by shape too. */
// CSS variables (styles.css), so that the dark theme recolours the series too.
const COLOURS = { requests: 'var(--primary)', errors: 'var(--danger)', p95: 'var(--warn)', p50: 'var(--ok)' };

export interface Column<T> {
  label: string;
  value(row: T): ReactNode;
}

/**
 * A chart with its title (the figure's caption), a one-line summary for screen readers, and the
 * same numbers as a table a click away, so that nothing is only in the picture.
 */
export function ChartFigure<T>({ id, title, summary, rows, columns, children }: { id: string; title: string; summary: string; rows: T[]; columns: Column<T>[]; children: ReactNode }) {
  return (
    <figure className="card ops-chart" aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <p id={`${id}-summary`} className="visually-hidden">
        {summary}
      </p>
      <div className="ops-chart-area">{children}</div>
      <details>
        <summary>Numbers: {title}</summary>
        <table className="data-table">
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th scope="col" key={column.label}>
                  {column.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                {columns.map((column) => (
                  <td key={column.label}>{column.value(row)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

export interface SeriesPoint {
  label: string;
  requests: number;
  errors: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export function RequestsChart({ title, points }: { title: string; points: SeriesPoint[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={points} title={title} margin={{ top: 8, right: 16, bottom: 4, left: 0 }}>
        <CartesianGrid stroke="var(--row-line)" />
        <XAxis dataKey="label" minTickGap={24} tick={{ fill: 'var(--muted)', fontSize: 12 }} />
        <YAxis allowDecimals={false} tick={{ fill: 'var(--muted)', fontSize: 12 }} width={48} />
        <Tooltip />
        <Legend />
        <Line type="monotone" dataKey="requests" name="Requests" stroke={COLOURS.requests} strokeWidth={2} dot={false} isAnimationActive={false} />
        <Line type="monotone" dataKey="errors" name="Errors (4xx, 5xx)" stroke={COLOURS.errors} strokeWidth={2} strokeDasharray="5 3" dot={false} isAnimationActive={false} />
      </LineChart>
    </ResponsiveContainer>
  );
}

export function LatencyChart({ title, points }: { title: string; points: SeriesPoint[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={points} title={title} margin={{ top: 8, right: 16, bottom: 4, left: 0 }}>
        <CartesianGrid stroke="var(--row-line)" />
        <XAxis dataKey="label" minTickGap={24} tick={{ fill: 'var(--muted)', fontSize: 12 }} />
        <YAxis unit=" ms" tick={{ fill: 'var(--muted)', fontSize: 12 }} width={64} />
        <Tooltip />
        <Legend />
        <Line type="monotone" dataKey="p95Ms" name="p95" stroke={COLOURS.p95} strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
        <Line type="monotone" dataKey="p50Ms" name="Median" stroke={COLOURS.p50} strokeWidth={2} strokeDasharray="5 3" dot={{ r: 2 }} isAnimationActive={false} />
      </LineChart>
    </ResponsiveContainer>
  );
}

export interface BarPoint {
  name: string;
  requests: number;
  errors: number;
}

export function RequestBars({ title, bars }: { title: string; bars: BarPoint[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={bars} title={title} margin={{ top: 8, right: 16, bottom: 4, left: 0 }}>
        <CartesianGrid stroke="var(--row-line)" vertical={false} />
        <XAxis dataKey="name" tick={{ fill: 'var(--muted)', fontSize: 12 }} interval={0} />
        <YAxis allowDecimals={false} tick={{ fill: 'var(--muted)', fontSize: 12 }} width={48} />
        <Tooltip />
        <Legend />
        <Bar dataKey="requests" name="Requests" fill={COLOURS.requests} isAnimationActive={false} />
        <Bar dataKey="errors" name="Errors (4xx, 5xx)" fill={COLOURS.errors} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
