import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/modules/logs/log-buffer.js';
import { decodeLogJob, encodeLogJob } from '../../src/modules/logs/log-wire.js';

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

describe('request-logs job payload', () => {
  it('round-trips entries exactly, nulls, unicode and odd characters included', async () => {
    const entries = [
      ...Array.from({ length: 500 }, (_, i) => entry(i)),
      entry(900, { userAgent: null, ip: null, path: '/v1/x?q=%E2%9C%93&t=\t"\\', requestId: 'ünïcødé ✓ 😀' }),
    ];
    const job = await encodeLogJob(entries);
    expect(Object.keys(job).sort()).toEqual(['v', 'z']);
    // Stored by pg-boss as JSON: what comes back from the queue is the parsed document.
    expect(await decodeLogJob(JSON.parse(JSON.stringify(job)))).toEqual(entries);
  });

  it('is a fraction of the size of the entries as JSON objects', async () => {
    const entries = Array.from({ length: 500 }, (_, i) => entry(i));
    const job = await encodeLogJob(entries);
    expect(JSON.stringify(job).length).toBeLessThan(JSON.stringify({ entries }).length / 4);
  });

  it('still reads jobs an API of the previous version queued (objects with ISO times)', async () => {
    const { createdAt, ...rest } = entry(1);
    const legacy = { entries: [{ ...rest, id: 'ignored', createdAt: new Date(createdAt).toISOString() }] };
    const [decoded] = await decodeLogJob(legacy);
    expect(decoded).toMatchObject({ ...rest, createdAt });
  });
});
