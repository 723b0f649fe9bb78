import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sqlOn } from '../src/db/sql.js';
import { buildSegments } from '../src/modules/logs/log-segment.js';
import { insertLogSegments, rollUpRequestLogs } from '../src/modules/logs/log-store.js';
import type { Fixture } from './setup.js';

export interface LogScaleReport {
  entries: number;
  segments: number;
  tableSize: string;
  queries: { query: string; medianMs: number; maxMs: number; total: number | null }[];
}

const DAY = 86_400_000;

/**
 * "A page stays fast with 10 million rows" (issue #7): that many entries of one project spread
 * over 25 days, stored as the worker stores them (hand-overs of 2,000 entries) and rolled up,
 * then each log query five times in a row (median and max, total included).
 */
export async function benchLogScale(options: { api: string; databaseUrl: string; fixture: Fixture; entries: number; log: (line: string) => void }): Promise<LogScaleReport> {
  const { fixture, entries: count } = options;
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2, options: '-c TimeZone=UTC' });
  try {
    const rareKey = randomUUID();
    const keys = [randomUUID(), randomUUID(), null];
    const end = Date.now() - 60_000;
    const span = 25 * DAY;
    for (let i = 0; i < count; i += 2000) {
      const entries = Array.from({ length: Math.min(2000, count - i) }, (_, k) => {
        const n = i + k;
        return {
          projectId: fixture.projectId,
          requestId: randomUUID(),
          method: n % 5 === 0 ? 'POST' : 'GET',
          path: `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents/${n}`,
          status: n % 1000 === 7 ? 404 : 200,
          durationMs: (n % 700) / 10,
          // One request in 100,000 with this key: the rarest filter.
          apiKeyId: n % 100_000 === 3 ? rareKey : keys[n % 3],
          accountId: null,
          ip: '127.0.0.1',
          userAgent: 'bench',
          createdAt: end - span + Math.floor((n / count) * span),
        };
      });
      await insertLogSegments(sqlOn(pool), await buildSegments(entries));
      if (i % 1_000_000 === 0) options.log(`log entries stored: ${i}`);
    }
    await rollUpRequestLogs(pool);
    await pool.query('vacuum analyze request_log_segment');
    const [size] = (
      await pool.query<{ segments: number; size: string }>(
        `select count(*)::int as segments, pg_size_pretty(pg_total_relation_size('request_log_segment')) as size from request_log_segment`,
      )
    ).rows;
    const iso = (ms: number) => new Date(ms).toISOString();
    const queries: Record<string, string> = {
      'page 1': '',
      'page 1, withCount=false': '?withCount=false',
      'page 1, size 1000': '?size=1000',
      'page 500': '?page=500',
      'status=404 (1 in 1,000)': '?status=404',
      'apiKeyId (1 in 100,000)': `?apiKeyId=${rareKey}`,
      'method=POST, last 3 days': `?method=POST&from=${iso(end - 3 * DAY + 1234)}`,
      'from/to within one hour': `?from=${iso(end - 10 * DAY + 60_000)}&to=${iso(end - 10 * DAY + 1_800_000)}`,
    };
    const report: LogScaleReport = { entries: count, segments: size.segments, tableSize: size.size, queries: [] };
    for (const [query, search] of Object.entries(queries)) {
      const times: number[] = [];
      let total: number | null = null;
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        const res = await fetch(`${options.api}/v1/${fixture.projectId}/logs${search}`, { headers: { authorization: `Bearer ${fixture.writeKey}` } });
        if (!res.ok) throw new Error(`${query}: ${res.status} ${await res.text()}`);
        total = ((await res.json()) as { pagination: { total: number | null } }).pagination.total;
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      report.queries.push({ query, medianMs: times[2], maxMs: times[4], total });
    }
    return report;
  } finally {
    await pool.end();
  }
}
