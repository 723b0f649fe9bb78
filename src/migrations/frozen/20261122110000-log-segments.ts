import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { constants, zstdCompress } from 'node:zlib';

/*
 * The segment builder of Migration20261122110000_log_segments, frozen: a later change to the
 * logs module must not change what this migration writes. It is the logs module's
 * `buildSegments` (src/modules/logs/log-segment.ts) and the latency histogram's `latencySlot`
 * (src/modules/metrics/histogram.ts) as they were, reduced to what the migration converts: rows
 * of the old `request_log` table, which always have an id and are never event streams. The
 * segments are byte for byte what the logs module writes for such entries, so today's
 * `readSegment` reads them (test/foundation/frozen-migrations.test.ts compares both).
 */

/** A `request_log` row on its way into a segment. */
export interface ConvertedEntry {
  id: string;
  projectId: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  apiKeyId: string | null;
  accountId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** Arrival, epoch milliseconds. */
  createdAt: number;
}

/** The entries of one segment grouped by status, method and key, with their counts. */
interface Facet {
  s: number;
  m: string;
  k: string | null;
  /** Entries. */
  n: number;
  /** Sum of their durations, in milliseconds. */
  d: number;
  /** Latency histogram: bucket index (LATENCY_BOUNDS_MS) → entries. */
  b: Record<string, number>;
}

/** A segment, as the migration inserts it into `request_log_segment`. */
export interface ConvertedSegment {
  id: string;
  projectId: string;
  firstAt: number;
  lastAt: number;
  entries: number;
  facets: Facet[];
  /** base64(zstd(JSON of rows)). */
  z: string;
}

/** One entry as stored, without its project (the segment's), with its id last. */
type Row = [string, string, string, number, number, string | null, string | null, string | null, string | null, number, string];

/** At most this many entries a segment, as the logs module makes them (readers build entry ids from a 12-bit position). */
const MAX_SEGMENT_ENTRIES = 4096;
const HOUR_MS = 3_600_000;

/** The rollups' latency buckets: upper bounds in milliseconds. */
const LATENCY_BOUNDS_MS = [
  1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12.5, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400,
  500, 600, 800, 1000, 1250, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10_000, 15_000, 20_000, 30_000, 60_000,
];

/** PostgreSQL's `width_bucket(duration, LATENCY_BOUNDS_MS)`: how many bounds are ≤ the duration. */
function latencySlot(durationMs: number): number {
  let low = 0;
  let high = LATENCY_BOUNDS_MS.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (LATENCY_BOUNDS_MS[mid] <= durationMs) low = mid + 1;
    else high = mid;
  }
  return low;
}

const compress = promisify(zstdCompress);
const ZSTD_FAST = { params: { [constants.ZSTD_c_compressionLevel]: 1 } };

function facetsOf(entries: readonly ConvertedEntry[]): Facet[] {
  const facets = new Map<string, Facet>();
  let facet: Facet | undefined;
  for (const e of entries) {
    if (!facet || facet.s !== e.status || facet.m !== e.method || facet.k !== e.apiKeyId) {
      const key = `${e.status} ${e.method} ${e.apiKeyId}`;
      facet = facets.get(key);
      if (!facet) facets.set(key, (facet = { s: e.status, m: e.method, k: e.apiKeyId, n: 0, d: 0, b: {} }));
    }
    facet.n++;
    facet.d += e.durationMs;
    const slot = latencySlot(e.durationMs);
    facet.b[slot] = (facet.b[slot] ?? 0) + 1;
  }
  return [...facets.values()];
}

/**
 * The entries as segments: one per project and clock hour (at most 4,096 entries each), in the
 * order given, each entry keeping its id. `ids` names each segment (random by default).
 */
export async function buildConvertedSegments(
  entries: readonly ConvertedEntry[],
  ids: (index: number) => string = () => randomUUID(),
): Promise<ConvertedSegment[]> {
  const byProjectHour = new Map<string, ConvertedEntry[]>();
  let list: ConvertedEntry[] | undefined;
  let project = '';
  let hourEnd = -Infinity;
  let hourStart = Infinity;
  for (const e of entries) {
    if (e.projectId !== project || e.createdAt < hourStart || e.createdAt >= hourEnd) {
      project = e.projectId;
      hourStart = e.createdAt - (e.createdAt % HOUR_MS);
      hourEnd = hourStart + HOUR_MS;
      const key = `${project} ${hourStart}`;
      list = byProjectHour.get(key);
      if (!list) byProjectHour.set(key, (list = []));
    }
    list!.push(e);
  }
  const segments: Promise<ConvertedSegment>[] = [];
  for (const list of byProjectHour.values()) {
    const { projectId } = list[0];
    for (let i = 0; i < list.length; i += MAX_SEGMENT_ENTRIES) {
      segments.push(segmentOf(ids(segments.length), projectId, list.slice(i, i + MAX_SEGMENT_ENTRIES)));
    }
  }
  return Promise.all(segments);
}

async function segmentOf(id: string, projectId: string, entries: ConvertedEntry[]): Promise<ConvertedSegment> {
  let firstAt = Infinity;
  let lastAt = -Infinity;
  const rows = entries.map((e): Row => {
    if (e.createdAt < firstAt) firstAt = e.createdAt;
    if (e.createdAt > lastAt) lastAt = e.createdAt;
    return [e.requestId, e.method, e.path, e.status, e.durationMs, e.apiKeyId, e.accountId, e.ip, e.userAgent, e.createdAt, e.id];
  });
  const z = (await compress(JSON.stringify(rows), ZSTD_FAST)).toString('base64');
  return { id, projectId, firstAt, lastAt, entries: entries.length, facets: facetsOf(entries), z };
}
