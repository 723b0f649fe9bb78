import type pg from 'pg';
import { transaction, type Sql } from '../../db/sql.js';
import { paginationOf, pageWindow, wantsCount } from '../../shared/pagination.js';
import { HOUR_MS, readSegment, type EntryFilter, type StoredLogEntry } from './log-segment.js';
import type { ListLogsInput, RequestLogOutput } from './log.schema.js';
import { countWholeHours, countWithinHour, repeatableReadOnly, rollupState, segmentsById, segmentsNewestFirst } from './log.sql.js';

/**
 * Segments read per round trip while walking a project's logs newest first: few at first (a
 * first page usually needs one or two), more once a deep page or a rare filter shows it needs many.
 */
const FIRST_READ = 4;
const SEGMENTS_PER_READ = 16;

const toOutput = (entry: StoredLogEntry): RequestLogOutput => ({
  ...entry,
  stream: entry.stream === true,
  console: entry.console === true,
  durationMs: Math.round(entry.durationMs * 100) / 100,
  createdAt: new Date(entry.createdAt).toISOString(),
});

/** Newest first; entries of the same millisecond by id, descending (as PostgreSQL orders uuids). */
const newestFirst = (a: StoredLogEntry, b: StoredLogEntry) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The query of one list request, times in epoch milliseconds (`to` exclusive). */
interface LogQuery {
  projectId: string;
  from: number;
  to: number;
  input: ListLogsInput;
}

const matches =
  (q: LogQuery): EntryFilter =>
  (createdAt, status, method, apiKeyId) =>
    createdAt >= q.from &&
    createdAt < q.to &&
    (q.input.status === undefined || status === q.input.status) &&
    (q.input.method === undefined || method === q.input.method) &&
    (q.input.apiKeyId === undefined || apiKeyId === q.input.apiKeyId);

/** The filters only a stored entry answers (its path, its console marker). */
const payloadMatches = (input: ListLogsInput) => (entry: StoredLogEntry) =>
  (input.path === undefined || entry.path.includes(input.path)) &&
  (input.console === undefined || (entry.console === true) === (input.console === 'only'));

/** The start of the clock hour after the one holding `t`. */
const nextHour = (t: number) => Math.floor(t / HOUR_MS) * HOUR_MS + HOUR_MS;
const ms = (value: number) => (Number.isFinite(value) ? new Date(value).toISOString() : value > 0 ? 'infinity' : '-infinity');

/**
 * `GET /{projectId}/logs` (docs/logs-and-metrics.md#request-logs): newest first, filtered. Segments are read newest first (by
 * their last entry) and merged: an entry is placed once no segment left to read can hold a newer
 * one. The page and the total read one snapshot (repeatable read), so a rollup run in between
 * cannot make the total count an entry twice.
 */
export async function listLogs(pool: pg.Pool, projectId: string, input: ListLogsInput) {
  const { offset, limit } = pageWindow(input);
  return transaction(pool, async (sql) => {
    await sql(repeatableReadOnly());
    const [state] = await sql<{ watermark: string; retained_from: number }>(rollupState());
    const q: LogQuery = {
      projectId,
      from: Math.max(input.from?.getTime() ?? -Infinity, Number(state.retained_from)),
      // `to` is inclusive; times have the millisecond precision of the wire.
      to: input.to ? input.to.getTime() + 1 : Infinity,
      input,
    };
    const page = await pageOf(sql, q, offset, limit);
    // The path and the console marker are in the payloads only, not in the facets that count.
    const countable = input.path === undefined && input.console === undefined;
    const total = countable && wantsCount(input) ? await countLogs(sql, q, state.watermark) : null;
    return { list: page.slice(0, input.size).map(toOutput), pagination: paginationOf(input, page.length, total) };
  });
}

async function pageOf(sql: Sql, q: LogQuery, offset: number, limit: number): Promise<StoredLogEntry[]> {
  const keep = matches(q);
  const page: StoredLogEntry[] = [];
  let pending: StoredLogEntry[] = [];
  let placed = 0;
  // Keyset over (last_at, id), newest first; a segment never spans an hour, so none that holds
  // an entry before `to` ends after that hour does.
  let after: { lastAt: string; id: string } | null = null;
  for (;;) {
    const segments: { id: string; last_text: string; last_ms: number; payload: Buffer }[] = await sql(
      segmentsNewestFirst(q, { lastFrom: ms(q.from), lastTo: ms(nextHour(q.to)), to: ms(q.to) }, after, after ? SEGMENTS_PER_READ : FIRST_READ),
    );
    for (const segment of segments) {
      // Every entry newer than this segment's last one is in its place: none can follow.
      const horizon = Number(segment.last_ms);
      let settled = 0;
      while (settled < pending.length && pending[settled].createdAt > horizon) settled++;
      if (place(pending.slice(0, settled))) return page;
      pending = pending.slice(settled);
      pending.push(...(await readSegment(segment.id, segment.payload, keep)).filter(payloadMatches(q.input)));
      pending.sort(newestFirst);
    }
    if (segments.length < (after ? SEGMENTS_PER_READ : FIRST_READ)) {
      place(pending);
      return page;
    }
    const last = segments[segments.length - 1];
    after = { lastAt: last.last_text, id: last.id };
  }

  /** Counts entries in their final order into the page window; true once the page is full. */
  function place(entries: StoredLogEntry[]): boolean {
    for (const entry of entries) {
      if (placed++ >= offset) page.push(entry);
      if (page.length === limit) return true;
    }
    return false;
  }
}

/**
 * The exact number of matching entries without opening every segment: whole hours come from the
 * rollups (which hold every segment below the watermark) and from the facets of segments not
 * rolled up yet; in the partial hours at both ends, segments wholly inside count by their facets
 * and only those that straddle `from` or `to` are opened.
 */
async function countLogs(sql: Sql, q: LogQuery, watermark: string): Promise<number> {
  const lo = Math.ceil(q.from / HOUR_MS) * HOUR_MS;
  const hi = Math.max(lo, Math.floor(q.to / HOUR_MS) * HOUR_MS);
  const [whole] = await sql<{ n: string }>(countWholeHours(q, ms(lo), ms(hi), watermark));
  let total = Number(whole.n);
  // The partial hours: [from, lo) and [hi, to), each within one clock hour.
  for (const [a, b] of [
    [q.from, Math.min(lo, q.to)],
    [Math.max(hi, q.from), q.to],
  ]) {
    if (!(a < b)) continue;
    total += await countWithin(sql, q, a, b);
  }
  return total;
}

/** Matching entries in [a, b), an interval within one clock hour. */
async function countWithin(sql: Sql, q: LogQuery, a: number, b: number): Promise<number> {
  const [edge] = await sql<{ inside: string; straddling: string[] | null }>(countWithinHour(q, ms(a), ms(b), ms(nextHour(a))));
  let total = Number(edge.inside);
  if (edge.straddling?.length) {
    const segments = await sql<{ id: string; payload: Buffer }>(segmentsById(edge.straddling));
    const keep = matches({ ...q, from: a, to: b });
    for (const segment of segments) total += (await readSegment(segment.id, segment.payload, keep)).length;
  }
  return total;
}
