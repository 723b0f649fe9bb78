import { Empty } from '../../ui/feedback.js';
import type { Granularity, Metrics } from '../../data/metrics/queries.js';
import { ChartFigure, LatencyChart, RequestBars, RequestsChart, type BarPoint, type SeriesPoint } from './charts.js';

const hourLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value * 10) / 10} ms`);

/** The usage page's charts: requests and errors and latency over time, requests per project and per key. */
export default function MetricsCharts({ data, granularity, keyLabel, showProjects }: { data: Metrics; granularity: Granularity; keyLabel: string; showProjects: boolean }) {
  const label = (bucket: string) => (granularity === 'hour' ? hourLabel : dayLabel).format(new Date(bucket));
  const points: SeriesPoint[] = data.series.map((s) => ({ ...s, label: label(s.bucket) }));
  const projectBars: BarPoint[] = data.projects.map((p) => ({ name: p.name, requests: p.requests, errors: p.errors }));
  const keyBars: BarPoint[] = data.keys.map((k) => ({ name: k.name || 'Deleted key', requests: k.requests, errors: k.errors }));
  const busiest = points.reduce<SeriesPoint | null>((top, p) => (!top || p.requests > top.requests ? p : top), null);
  const worstP95 = points.reduce<SeriesPoint | null>((top, p) => (p.p95Ms !== null && (!top || p.p95Ms > (top.p95Ms ?? 0)) ? p : top), null);
  return (
    <div className="ops-charts">
      <ChartFigure
        id="chart-requests"
        title={`Requests and errors${keyLabel}`}
        summary={`${data.totals.requests} requests and ${data.totals.errors} errors in ${points.length} ${granularity === 'hour' ? 'hours' : 'days'}${busiest && busiest.requests > 0 ? `; the busiest, ${busiest.label}, had ${busiest.requests}` : ''}.`}
        rows={points}
        columns={[
          { label: granularity === 'hour' ? 'Hour' : 'Day', value: (p) => p.label },
          { label: 'Requests', value: (p) => p.requests },
          { label: 'Errors', value: (p) => p.errors },
        ]}
      >
        <RequestsChart title={`Requests and errors${keyLabel}`} points={points} />
      </ChartFigure>
      <ChartFigure
        id="chart-latency"
        title="Latency (p95 and median)"
        summary={worstP95 ? `The slowest ${granularity} had a p95 of ${ms(worstP95.p95Ms)} (${worstP95.label}).` : 'No request in this range.'}
        rows={points}
        columns={[
          { label: granularity === 'hour' ? 'Hour' : 'Day', value: (p) => p.label },
          { label: 'p95', value: (p) => ms(p.p95Ms) },
          { label: 'Median', value: (p) => ms(p.p50Ms) },
        ]}
      >
        <LatencyChart title="Latency (p95 and median)" points={points} />
      </ChartFigure>
      {showProjects && (
        <BarsFigure id="chart-projects" title={`Requests per project${keyLabel}`} what="Project" bars={projectBars} empty="No project in this workspace." />
      )}
      <BarsFigure id="chart-keys" title="Requests per API key" what="API key" bars={keyBars} empty="No request made with an API key in this range." />
    </div>
  );
}

function BarsFigure({ id, title, what, bars, empty }: { id: string; title: string; what: string; bars: BarPoint[]; empty: string }) {
  if (bars.length === 0) {
    return (
      <section className="card ops-chart" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`} className="ops-chart-heading">{title}</h2>
        <Empty>{empty}</Empty>
      </section>
    );
  }
  return (
    <ChartFigure
      id={id}
      title={title}
      summary={bars.map((b) => `${b.name}: ${b.requests} requests, ${b.errors} errors`).join('; ')}
      rows={bars}
      columns={[
        { label: what, value: (b) => b.name },
        { label: 'Requests', value: (b) => b.requests },
        { label: 'Errors', value: (b) => b.errors },
      ]}
    >
      <RequestBars title={title} bars={bars} />
    </ChartFigure>
  );
}

