import { useState } from 'react';
import { useParams } from 'react-router';
import type { RouterOutputs } from 'tabula/client';
import { useApi } from '../query.js';
import { SelectInput } from '../ui/controls.js';
import { Empty, ErrorBanner, Loading, PageHeader } from '../ui/feedback.js';
import { ChartFigure, LatencyChart, RequestBars, RequestsChart, type BarPoint, type SeriesPoint } from './ops/charts.js';
import { bytes } from './ops/format.js';
import './ops/ops.css';

type Metrics = RouterOutputs['metrics']['get'];
type Granularity = Metrics['granularity'];

const HOUR = 3_600_000;
const RANGES = [
  { id: '24h', label: 'Last 24 hours', hours: 24, granularity: 'hour' },
  { id: '7d', label: 'Last 7 days', hours: 7 * 24, granularity: 'hour' },
  { id: '30d', label: 'Last 30 days', hours: 30 * 24, granularity: 'day' },
] as const satisfies { id: string; label: string; hours: number; granularity: Granularity }[];
type RangeId = (typeof RANGES)[number]['id'];
const GRANULARITIES = [
  { id: 'hour', label: 'Hourly' },
  { id: 'day', label: 'Daily' },
] satisfies { id: Granularity; label: string }[];
const ALL_KEYS = 'all';

/** The range ends at the end of the current bucket, so the last point is the one filling now. */
function rangeOf(hours: number, granularity: Granularity): { from: string; to: string } {
  const step = granularity === 'hour' ? HOUR : 24 * HOUR;
  const to = Math.ceil(Date.now() / step) * step;
  return { from: new Date(to - hours * HOUR).toISOString(), to: new Date(to).toISOString() };
}

const hourLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value * 10) / 10} ms`);

/**
 * Usage charts of a workspace (/w/:workspaceId/metrics) or of one of its projects
 * (/w/:workspaceId/p/:projectId/metrics: the figures narrowed to it by the API's `projectId`).
 */
export function MetricsPage() {
  const { workspaceId, projectId } = useParams();
  const [rangeId, setRangeId] = useState<RangeId>('24h');
  const [granularity, setGranularity] = useState<Granularity>('hour');
  const [apiKeyId, setApiKeyId] = useState<string>(ALL_KEYS);
  const range = RANGES.find((r) => r.id === rangeId)!;
  const workspace = useApi(['workspace', workspaceId], (client) => client.workspaces.get.query({ workspaceId: workspaceId! }), { enabled: !projectId });
  const filters = { rangeId, granularity, projectId, apiKeyId: apiKeyId === ALL_KEYS ? undefined : apiKeyId };
  const metrics = useApi(['workspace', workspaceId, 'metrics', filters], (client) => client.metrics.get.query({ workspaceId: workspaceId!, granularity, ...rangeOf(range.hours, granularity), projectId, apiKeyId: filters.apiKeyId }), { keepPrevious: true });
  // The key picker lists the keys with requests in the range, without the key filter.
  const allKeys = useApi(['workspace', workspaceId, 'metrics', { ...filters, apiKeyId: undefined }], (client) => client.metrics.get.query({ workspaceId: workspaceId!, granularity, ...rangeOf(range.hours, granularity), projectId }), { keepPrevious: true });

  const data = metrics.data;
  const scope = projectId ? (data?.projects[0]?.name ?? 'this project') : (workspace.data?.name ?? 'this workspace');
  const label = (bucket: string) => (granularity === 'hour' ? hourLabel : dayLabel).format(new Date(bucket));
  const points: SeriesPoint[] = (data?.series ?? []).map((s) => ({ ...s, label: label(s.bucket) }));
  const projectBars: BarPoint[] = (data?.projects ?? []).map((p) => ({ name: p.name, requests: p.requests, errors: p.errors }));
  const keyBars: BarPoint[] = (data?.keys ?? []).map((k) => ({ name: k.name || 'Deleted key', requests: k.requests, errors: k.errors }));
  const keyLabel = apiKeyId === ALL_KEYS ? '' : ` with the key “${allKeys.data?.keys.find((k) => k.apiKeyId === apiKeyId)?.name ?? 'chosen'}”`;
  const busiest = points.reduce<SeriesPoint | null>((top, p) => (!top || p.requests > top.requests ? p : top), null);
  const worstP95 = points.reduce<SeriesPoint | null>((top, p) => (p.p95Ms !== null && (!top || p.p95Ms > (top.p95Ms ?? 0)) ? p : top), null);

  return (
    <>
      <PageHeader title={`Usage of ${scope}`} />
      <div className="toolbar">
        <SelectInput label="Range" value={rangeId} options={RANGES.map(({ id, label }) => ({ id, label }))} onChange={(id) => {
          const next = RANGES.find((r) => r.id === id)!;
          setRangeId(next.id);
          setGranularity(next.granularity);
        }} />
        <SelectInput label="Granularity" value={granularity} options={GRANULARITIES} onChange={(id) => setGranularity(id as Granularity)} />
        <SelectInput
          label="API key"
          value={apiKeyId}
          options={[{ id: ALL_KEYS, label: 'All requests' }, ...(allKeys.data?.keys ?? []).map((k) => ({ id: k.apiKeyId, label: k.name || 'Deleted key' }))]}
          onChange={setApiKeyId}
        />
      </div>
      <ErrorBanner error={metrics.error} />
      {!data ? (
        metrics.isPending && <Loading />
      ) : (
        <>
          <ul className="ops-totals card" aria-label="Totals">
            <li>
              <span className="muted">Requests{keyLabel}</span>
              <strong>{data.totals.requests.toLocaleString()}</strong>
            </li>
            <li>
              <span className="muted">Errors</span>
              <strong>{data.totals.errors.toLocaleString()}</strong>
            </li>
            <li>
              <span className="muted">Contents</span>
              <strong>{data.totals.contents.toLocaleString()}</strong>
            </li>
            <li>
              <span className="muted">Files</span>
              <strong>{data.totals.files.toLocaleString()}</strong>
            </li>
            <li>
              <span className="muted">Storage</span>
              <strong>{bytes(data.totals.storageBytes)}</strong>
            </li>
          </ul>
          <p className="muted">Request figures are updated every minute; contents, files and storage are counted now.</p>
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
            {!projectId && (
              <BarsFigure id="chart-projects" title={`Requests per project${keyLabel}`} what="Project" bars={projectBars} empty="No project in this workspace." />
            )}
            <BarsFigure id="chart-keys" title="Requests per API key" what="API key" bars={keyBars} empty="No request made with an API key in this range." />
          </div>
        </>
      )}
    </>
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
