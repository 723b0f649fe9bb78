import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/modules/logs/log-buffer.js';
import { deflateRawSync } from 'node:zlib';
import { decodeLogJob, logJob } from '../../src/modules/logs/log-wire.js';
import { buildSegments, readSegment, type LogSegment } from '../../src/modules/logs/log-segment.js';
import { latencySlot } from '../../src/modules/metrics/histogram.js';

const entry = (i: number, extra: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  projectId: '01a20431-17d0-7af5-a1af-76564a77dc10',
  requestId: `req-${i}`,
  method: 'GET',
  path: `/v1/01a20431-17d0-7af5-a1af-76564a77dc10/tables?page=${i}`,
  status: 200 + (i % 3),
  durationMs: 1.25 * i,
  apiKeyId: i % 2 ? '01a20431-17d0-7af5-a1af-76564a77dc11' : null,
  accountId: i % 2 ? null : '01a20431-17d0-7af5-a1af-76564a77dc12',
  ip: '127.0.0.1',
  userAgent: 'curl/8',
  createdAt: 1_790_000_000_000 + i,
  ...extra,
});

/** The entries of a job as the worker stores and reads them back. */
async function readBack(segments: LogSegment[]) {
  const read = await Promise.all(segments.map(async (s) => (await readSegment(s.id, Buffer.from(s.z, 'base64'))).map((e) => ({ ...e, projectId: s.projectId }))));
  return read.flat();
}

describe('request-logs job payload', () => {
  it('round-trips entries exactly, nulls, unicode and odd characters included', async () => {
    const entries = [
      ...Array.from({ length: 500 }, (_, i) => entry(i)),
      entry(900, { userAgent: null, ip: null, path: '/v1/x?q=%E2%9C%93&t=\t"\\', requestId: 'ünïcødé ✓ 😀' }),
    ];
    const job = logJob(await buildSegments(entries));
    expect(job.v).toBe(3);
    // Stored by pg-boss as JSON: what comes back from the queue is the parsed document.
    const segments = await decodeLogJob('job', JSON.parse(JSON.stringify(job)));
    expect(segments).toHaveLength(1);
    const read = await readBack(segments);
    expect(read.map(({ id: _id, ...e }) => e)).toEqual(entries);
    // Ids: distinct UUID v7s of each entry's arrival.
    expect(new Set(read.map((e) => e.id)).size).toBe(entries.length);
    expect(read.every((e) => e.id.startsWith(e.createdAt.toString(16).padStart(12, '0').replace(/^(.{8})/, '$1-')))).toBe(true);
  });

  it('round-trips a large segment: ~1.5 MB of rows, multi-byte characters, a 40,000-character path', async () => {
    const entries = Array.from({ length: 600 }, (_, i) => entry(i, { path: `/v1/x?q=${'✓é😀'.repeat(i % 400)}`, userAgent: 'ü'.repeat(i % 300) }));
    entries.splice(300, 0, entry(300.5, { path: `/v1/x?q=${'€'.repeat(40_000)}` }));
    const segments = await buildSegments(entries);
    expect(segments).toHaveLength(1);
    expect((await readBack(segments)).map(({ id: _id, ...e }) => e)).toEqual(entries);
  });

  it('summarises each segment: entries by status, method and key, with durations and latency buckets', async () => {
    const entries = Array.from({ length: 300 }, (_, i) => entry(i));
    const [segment] = await buildSegments(entries);
    expect(segment).toMatchObject({ entries: 300, firstAt: entries[0].createdAt, lastAt: entries[299].createdAt });
    for (const facet of segment.facets) {
      const mine = entries.filter((e) => e.status === facet.s && e.method === facet.m && e.apiKeyId === facet.k);
      expect(facet.n).toBe(mine.length);
      expect(facet.d).toBeCloseTo(mine.reduce((sum, e) => sum + e.durationMs, 0), 6);
      expect(Object.values(facet.b).reduce((a, b) => a + b, 0)).toBe(mine.length);
    }
    expect(segment.facets.reduce((sum, f) => sum + f.n, 0)).toBe(300);
  });

  it('puts latencies in the buckets PostgreSQL width_bucket would', () => {
    expect([0, 0.99, 1, 1.24, 1.25, 59_999, 60_000, 1e9].map(latencySlot)).toEqual([0, 0, 1, 1, 2, 44, 45, 45]);
  });

  it('is a fraction of the size of the entries as JSON objects', async () => {
    const entries = Array.from({ length: 500 }, (_, i) => entry(i));
    const job = logJob(await buildSegments(entries));
    expect(JSON.stringify(job).length).toBeLessThan(JSON.stringify({ entries }).length / 4);
  });

  it('still reads jobs older APIs queued (v2 rows, v1 objects with ISO times), with the same segment ids on a retry', async () => {
    const { createdAt, ...rest } = entry(1);
    const v1 = { entries: [{ ...rest, id: 'ignored', createdAt: new Date(createdAt).toISOString() }] };
    const [segment] = await decodeLogJob('job-1', v1);
    expect((await decodeLogJob('job-1', v1))[0].id).toBe(segment.id);
    expect((await decodeLogJob('job-2', v1))[0].id).not.toBe(segment.id);
    expect((await readBack([segment]))[0]).toMatchObject({ ...rest, createdAt });

    const entries = [entry(2), entry(3, { projectId: '01a20431-17d0-7af5-a1af-76564a77dc99' })];
    const rows = entries.map((e) => [e.projectId, e.requestId, e.method, e.path, e.status, e.durationMs, e.apiKeyId, e.accountId, e.ip, e.userAgent, e.createdAt]);
    const v2 = { v: 2 as const, z: deflateRawSync(JSON.stringify(rows)).toString('base64') };
    const segments = await decodeLogJob('job-3', v2);
    expect(segments).toHaveLength(2);
    expect((await readBack(segments)).map(({ id: _id, ...e }) => e)).toEqual(entries);
  });
});
