import { lazy, Suspense, useState } from 'react';
import { useParams } from 'react-router';
import { useMetrics, type Granularity } from '../../data/metrics/queries.js';
import { useWorkspace } from '../../data/workspaces/queries.js';
import { SelectInput } from '../../ui/controls.js';
import { ErrorBanner, Loading, PageHeader } from '../../ui/feedback.js';
import { bytes } from '../../ui/format.js';
import './Metrics.css';

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
/** The charts (recharts, most of the console's script) load when a usage page first opens. */
const MetricsCharts = lazy(() => import('./MetricsCharts.js'));

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
  const workspace = useWorkspace(workspaceId, { enabled: !projectId });
  const filters = { rangeId, granularity, projectId, apiKeyId: apiKeyId === ALL_KEYS ? undefined : apiKeyId };
  const metrics = useMetrics(workspaceId, filters, range.hours);
  // The key picker lists the keys with requests in the range, without the key filter.
  const allKeys = useMetrics(workspaceId, { ...filters, apiKeyId: undefined }, range.hours);

  const data = metrics.data;
  const scope = projectId ? (data?.projects[0]?.name ?? 'this project') : (workspace.data?.name ?? 'this workspace');
  const keyLabel = apiKeyId === ALL_KEYS ? '' : ` with the key “${allKeys.data?.keys.find((k) => k.apiKeyId === apiKeyId)?.name ?? 'chosen'}”`;

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
          <Suspense fallback={<Loading label="Loading the charts…" />}>
            <MetricsCharts data={data} granularity={granularity} keyLabel={keyLabel} showProjects={!projectId} />
          </Suspense>
        </>
      )}
    </>
  );
}
