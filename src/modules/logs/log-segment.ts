import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { constants, zstdCompress, zstdDecompress } from 'node:zlib';
import { latencySlot, type Histogram } from '../metrics/histogram.js';
import type { RequestLogEntry } from './log-entry.js';

/*
 * Request logs are stored as segments: the entries of one project and one clock hour from one
 * hand-over of an API's buffer, as one row of `request_log_segment` holding them compressed,
 * with a summary (`facets`) that totals, filters and rollups read without opening the payload. A row per request cost the
 * database ~30 µs per logged request (heap, three b-trees, two BRIN); a segment of a few hundred
 * entries costs about as much as one such row.
 */

/** The entries of one segment grouped by what filters and rollups ask about, with their counts. */
export interface Facet {
  s: number;
  m: string;
  k: string | null;
  /** Entries. */
  n: number;
  /** Sum of their durations, in milliseconds. */
  d: number;
  /** Latency histogram: bucket index (LATENCY_BOUNDS_MS) → entries. */
  b: Histogram;
  /** 1: these entries are event streams (counted apart from requests); absent: requests. */
  t?: 1;
}

/** A segment as it travels in a request-logs job and is inserted by the worker. */
export interface LogSegment {
  /** Made by the API: a job retried after its insert committed is skipped by these ids. */
  id: string;
  projectId: string;
  firstAt: number;
  lastAt: number;
  entries: number;
  facets: Facet[];
  /** base64(zstd(JSON of rows)). */
  z: string;
}

/** An entry on its way into a segment; with an `id` when it has one already (merged, converted). */
type EntryToStore = RequestLogEntry & { id?: string };

/**
 * One entry as stored, without its project (the segment's); `id` only where it was given (null
 * when only `stream` or `console` follows), `stream` 1 for an event stream (0 when only `console`
 * follows), `console` 1 for a call of the admin console.
 */
type Row = [string, string, string, number, number, string | null, string | null, string | null, string | null, number, (string | null)?, (1 | 0)?, 1?];

/** A stored log entry, as listed. */
export interface StoredLogEntry extends Omit<RequestLogEntry, 'projectId'> {
  id: string;
}

/** Ids of entries are made from the segment id and the entry's position, which has 12 bits. */
const MAX_SEGMENT_ENTRIES = 4096;
export const HOUR_MS = 3_600_000;

const compress = promisify(zstdCompress);
const decompress = promisify(zstdDecompress);
/**
 * zstd at level 1: per log entry 0.6 µs and 47 bytes, where deflate at its fastest level took
 * 1.6 µs and 53 bytes (measured on 2,000 entries of one project).
 */
const ZSTD_FAST = { params: { [constants.ZSTD_c_compressionLevel]: 1 } };

function facetsOf(entries: readonly RequestLogEntry[]): Facet[] {
  const facets = new Map<string, Facet>();
  let facet: Facet | undefined;
  for (const e of entries) {
    // Runs of entries alike (one client's traffic) skip the lookup.
    if (!facet || facet.s !== e.status || facet.m !== e.method || facet.k !== e.apiKeyId || (facet.t === 1) !== (e.stream === true)) {
      const key = `${e.status} ${e.method} ${e.apiKeyId}${e.stream ? ' stream' : ''}`;
      facet = facets.get(key);
      if (!facet) facets.set(key, (facet = { s: e.status, m: e.method, k: e.apiKeyId, n: 0, d: 0, b: {}, ...(e.stream ? { t: 1 as const } : {}) }));
    }
    facet.n++;
    facet.d += e.durationMs;
    const slot = latencySlot(e.durationMs);
    facet.b[slot] = (facet.b[slot] ?? 0) + 1;
  }
  return [...facets.values()];
}

/**
 * The entries of one hand-over as segments: one per project and clock hour (at most 4,096 entries
 * each), in the order given. A segment never spans an hour, so whole hours and retention (by the
 * hour) never cut one in two, and its hour is that of its first entry. `ids` names each segment
 * (random by default; the worker derives them from a job id, so that a retried job makes the
 * same ones). Entries with explicit ids (merged or converted segments) keep them.
 */
export async function buildSegments(
  entries: readonly EntryToStore[],
  ids: (index: number) => string = () => randomUUID(),
): Promise<LogSegment[]> {
  const byProjectHour = new Map<string, EntryToStore[]>();
  let list: EntryToStore[] | undefined;
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
  const segments: Promise<LogSegment>[] = [];
  for (const list of byProjectHour.values()) {
    const { projectId } = list[0];
    for (let i = 0; i < list.length; i += MAX_SEGMENT_ENTRIES) {
      const part = list.slice(i, i + MAX_SEGMENT_ENTRIES);
      segments.push(segmentOf(ids(segments.length), projectId, part));
    }
  }
  return Promise.all(segments);
}

async function segmentOf(id: string, projectId: string, entries: EntryToStore[]): Promise<LogSegment> {
  let firstAt = Infinity;
  let lastAt = -Infinity;
  const rows = entries.map((e): Row => {
    if (e.createdAt < firstAt) firstAt = e.createdAt;
    if (e.createdAt > lastAt) lastAt = e.createdAt;
    const row: Row = [e.requestId, e.method, e.path, e.status, e.durationMs, e.apiKeyId, e.accountId, e.ip, e.userAgent, e.createdAt];
    if (e.id || e.stream || e.console) row.push(e.id ?? null);
    if (e.stream || e.console) row.push(e.stream ? 1 : 0);
    if (e.console) row.push(1);
    return row;
  });
  const z = (await compress(JSON.stringify(rows), ZSTD_FAST)).toString('base64');
  return { id, projectId, firstAt, lastAt, entries: entries.length, facets: facetsOf(entries), z };
}

/** A stable segment id made from a name (a job id and a position): the same name, the same id. */
export function derivedSegmentId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * An entry's id: a UUID v7 of its arrival whose other bits are its position in the segment and
 * the segment id's last 62 bits, so ids are stable, unique and time-ordered without being stored.
 * Built as text from the segment's part, made once per segment (`segmentTail`: its last 16 hex
 * digits, dashed as a UUID's last two groups).
 */
function entryId(createdAt: number, index: number, segmentTail: string): string {
  const time = createdAt.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-${(0x7000 | index).toString(16)}-${segmentTail}`;
}

/** Which stored entries a reader wants, judged before they are built. */
export type EntryFilter = (createdAt: number, status: number, method: string, apiKeyId: string | null) => boolean;

/**
 * The entries of a stored segment (`payload` as the worker inserted it), in stored order; with
 * `keep`, only those it accepts (a filtered list opens many segments to keep a few entries).
 */
export async function readSegment(segmentId: string, payload: Buffer, keep?: EntryFilter): Promise<StoredLogEntry[]> {
  const rows = JSON.parse((await decompress(payload)).toString('utf8')) as Row[];
  const tail = segmentId.slice(19);
  const entries: StoredLogEntry[] = [];
  for (let index = 0; index < rows.length; index++) {
    const [requestId, method, path, status, durationMs, apiKeyId, accountId, ip, userAgent, createdAt, id, stream, fromConsole] = rows[index];
    if (keep && !keep(createdAt, status, method, apiKeyId)) continue;
    const entry: StoredLogEntry = { id: id ?? entryId(createdAt, index, tail), requestId, method, path, status, durationMs, apiKeyId, accountId, ip, userAgent, createdAt };
    if (stream === 1) entry.stream = true;
    if (fromConsole === 1) entry.console = true;
    entries.push(entry);
  }
  return entries;
}
