import type pg from 'pg';
import { invalidQuery } from '../../errors/app-error.js';
import { sqlOn } from '../../db/sql.js';
import { mergeHistogram, quantile, type Histogram } from './histogram.js';
import { MAX_BUCKETS, type MetricsInput, type MetricsOutput } from './metrics.schema.js';
import { latencySlots, projectFigures, requestsByKey, requestsByProject, requestSeries, type RollupRange } from './metrics.sql.js';

const HOUR_MS = 3_600_000;
const BUCKET_MS = { hour: HOUR_MS, day: 24 * HOUR_MS } as const;
const DEFAULT_SPAN_MS = { hour: 24 * HOUR_MS, day: 30 * 24 * HOUR_MS } as const;

/** The requested range, `from` rounded down to its bucket (UTC), within MAX_BUCKETS. */
function rangeOf(input: MetricsInput): { from: Date; to: Date } {
  const step = BUCKET_MS[input.granularity];
  const to = input.to ? new Date(input.to) : new Date();
  const requestedFrom = input.from ? new Date(input.from) : new Date(to.getTime() - DEFAULT_SPAN_MS[input.granularity]);
  const from = new Date(Math.floor(requestedFrom.getTime() / step) * step);
  if (from >= to) throw invalidQuery('`from` must be before `to`');
  if ((to.getTime() - from.getTime()) / step > MAX_BUCKETS[input.granularity]) {
    throw invalidQuery(`At most ${MAX_BUCKETS[input.granularity]} ${input.granularity} buckets per request; narrow from/to`);
  }
  return { from, to };
}

interface CountsRow {
  requests: string;
  errors: string;
  streams: string;
}

const counts = (row: CountsRow | undefined) => ({
  requests: Number(row?.requests ?? 0),
  errors: Number(row?.errors ?? 0),
  streams: Number(row?.streams ?? 0),
});
const NO_COUNTS = counts(undefined);

/**
 * Workspace metrics (docs/logs-and-metrics.md#workspace-metrics): request figures from the hourly rollups (never a scan of raw logs),
 * contents/files/storage counted live. `projectId` and `apiKeyId` narrow them to one project and
 * one key (the rollups keep both dimensions), for a project's and a key's own charts.
 */
export async function workspaceMetrics(pool: pg.Pool, workspaceId: string, input: MetricsInput): Promise<MetricsOutput> {
  const { from, to } = rangeOf(input);
  const sql = sqlOn(pool);
  const range: RollupRange = { workspaceId, from: from.toISOString(), to: to.toISOString(), projectId: input.projectId ?? null, apiKeyId: input.apiKeyId ?? null };
  const [projects, byProject, byKey, series, slots] = await Promise.all([
    sql<{ id: string; name: string; contents: string; files: string; bytes: string }>(projectFigures(workspaceId, range.projectId)),
    sql<CountsRow & { project_id: string }>(requestsByProject(range)),
    sql<CountsRow & { api_key_id: string; project_id: string; name: string | null }>(requestsByKey(range)),
    sql<CountsRow & { bucket: string }>(requestSeries(range, input.granularity)),
    sql<{ bucket: string; slot: string; count: string }>(latencySlots(range, input.granularity)),
  ]);

  const projectCounts = new Map(byProject.map((row) => [row.project_id, counts(row)]));
  const projectList = projects.map((p) => ({
    projectId: p.id,
    name: p.name,
    ...(projectCounts.get(p.id) ?? NO_COUNTS),
    contents: Number(p.contents),
    files: Number(p.files),
    storageBytes: Number(p.bytes),
  }));
  const sum = (pick: (p: (typeof projectList)[number]) => number) => projectList.reduce((total, p) => total + pick(p), 0);

  return {
    workspaceId,
    from: from.toISOString(),
    to: to.toISOString(),
    granularity: input.granularity,
    totals: {
      requests: sum((p) => p.requests),
      errors: sum((p) => p.errors),
      streams: sum((p) => p.streams),
      contents: sum((p) => p.contents),
      files: sum((p) => p.files),
      storageBytes: sum((p) => p.storageBytes),
    },
    projects: projectList,
    keys: byKey.map((row) => ({ apiKeyId: row.api_key_id, projectId: row.project_id, name: row.name ?? '', ...counts(row) })),
    series: seriesOf(from, to, input.granularity, series, slots),
  };
}

/** Every bucket of the range, empty ones included (a chart needs its zeros), with latency quantiles. */
function seriesOf(
  from: Date,
  to: Date,
  granularity: MetricsInput['granularity'],
  rows: (CountsRow & { bucket: string })[],
  slots: { bucket: string; slot: string; count: string }[],
): MetricsOutput['series'] {
  const byBucket = new Map(rows.map((row) => [new Date(row.bucket).getTime(), counts(row)]));
  const histograms = new Map<number, Histogram>();
  for (const { bucket, slot, count } of slots) {
    const key = new Date(bucket).getTime();
    histograms.set(key, mergeHistogram(histograms.get(key) ?? {}, { [slot]: Number(count) }));
  }
  const series: MetricsOutput['series'] = [];
  for (let t = from.getTime(); t < to.getTime(); t += BUCKET_MS[granularity]) {
    const histogram = histograms.get(t) ?? {};
    series.push({
      bucket: new Date(t).toISOString(),
      ...(byBucket.get(t) ?? NO_COUNTS),
      p50Ms: quantile(histogram, 0.5),
      p95Ms: quantile(histogram, 0.95),
    });
  }
  return series;
}
