import type { RouterOutputs } from 'tabula/client';
import { useApi } from '../api.js';
import { metricsKeys } from './keys.js';

export type Metrics = RouterOutputs['metrics']['get'];
export type Granularity = Metrics['granularity'];

/** What the usage page chose; the key of its figures. */
export interface MetricsFilters {
  rangeId: string;
  granularity: Granularity;
  projectId?: string;
  apiKeyId?: string;
}

const HOUR = 3_600_000;

/** The range ends at the end of the current bucket, so the last point is the one filling now. */
function rangeOf(hours: number, granularity: Granularity): { from: string; to: string } {
  const step = granularity === 'hour' ? HOUR : 24 * HOUR;
  const to = Math.ceil(Date.now() / step) * step;
  return { from: new Date(to - hours * HOUR).toISOString(), to: new Date(to).toISOString() };
}

/**
 * A workspace's usage over the last `hours` (narrowed to a project, an API key), read when it is
 * asked for: the range is taken at each read, not when the page first showed.
 */
export function useMetrics(workspaceId: string | undefined, filters: MetricsFilters, hours: number) {
  const { granularity, projectId, apiKeyId } = filters;
  return useApi(metricsKeys.get(workspaceId, filters), (client) => client.metrics.get.query({ workspaceId: workspaceId!, granularity, ...rangeOf(hours, granularity), projectId, apiKeyId }), {
    keepPrevious: true,
  });
}
