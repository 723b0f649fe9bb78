import { describe, expect, it } from 'vitest';
import { RequestLogBuffer, type RequestLogEntry } from '../../src/modules/logs/log-buffer.js';
import { readSegment, type LogSegment } from '../../src/modules/logs/log-segment.js';
import { createLogger } from '../../src/shared/logger.js';
import { entry } from './fixture.js';
import { clockReaches, until } from '../helpers/until.js';

const PROJECT = '0190b0a0-0000-7000-8000-000000000001';
const OTHER = '0190b0a0-0000-7000-8000-000000000002';
const entriesIn = (job: LogSegment[]) => job.reduce((sum, s) => sum + s.entries, 0);

/** The request ids a job carries, in order, read back from its compressed segments. */
async function requestIds(job: LogSegment[]): Promise<string[]> {
  const read = await Promise.all(job.map((s) => readSegment(s.id, Buffer.from(s.z, 'base64'))));
  return read.flat().map((e) => e.requestId);
}

/** A buffer whose queue fails while `down` says so and records each job it accepted. */
function bufferWithQueue(options: ConstructorParameters<typeof RequestLogBuffer>[2]) {
  const queue = { down: false, jobs: [] as LogSegment[][], attempts: [] as LogSegment[][] };
  const buffer = new RequestLogBuffer(async (segments) => {
    queue.attempts.push(segments);
    if (queue.down) throw new Error('queue down');
    queue.jobs.push(segments);
  }, createLogger('silent'), options);
  return { buffer, queue };
}

const numbered = (from: number, count: number, projectId = PROJECT): RequestLogEntry[] =>
  Array.from({ length: count }, (_, i) => entry(projectId, new Date(), { requestId: `r${from + i}` }));

describe('RequestLogBuffer', () => {
  it('hands over in batches per interval while entries keep arriving, however slow the queue is', async () => {
    const jobs: LogSegment[][] = [];
    // A slow queue: each hand-over lasts until 30 more entries arrived (or the pushing ended),
    // while entries arrive one per millisecond for a second.
    const end = Date.now() + 1000;
    const pushed: string[] = [];
    const buffer = new RequestLogBuffer(async (segments) => {
      jobs.push(segments);
      const arrived = pushed.length;
      await until(() => pushed.length >= arrived + 30 || Date.now() >= end, 5_000, '30 more entries during a hand-over', 1);
    }, createLogger('silent'), { intervalMs: 100, batchSize: 500 });
    while (Date.now() < end) {
      const e = entry(PROJECT, new Date(), { requestId: `r${pushed.length}` });
      buffer.push(e);
      pushed.push(e.requestId);
      await clockReaches(Date.now() + 1, 'the next millisecond');
    }
    await buffer.close();
    // Every entry once, in order.
    expect((await Promise.all(jobs.map(requestIds))).flat()).toEqual(pushed);
    // About one hand-over per interval (10 in a second), not one per few entries.
    expect(jobs.length).toBeLessThanOrEqual(20);
  });

  it('hands over at once when a batch is full, cut by project, with each entry intact', async () => {
    const { buffer, queue } = bufferWithQueue({ intervalMs: 60_000, batchSize: 4 });
    const sent = [entry(PROJECT, new Date(), { status: 404, durationMs: 12.5, userAgent: 'ünïcødé ✓' }), ...numbered(1, 2, OTHER), ...numbered(3, 1)];
    for (const e of sent) buffer.push(e);
    await buffer.flush();
    expect(queue.jobs).toHaveLength(1);
    const [job] = queue.jobs;
    expect(job.map((s) => [s.projectId, s.entries])).toEqual([[PROJECT, 2], [OTHER, 2]]);
    const [first] = await readSegment(job[0].id, Buffer.from(job[0].z, 'base64'));
    const { projectId: _project, ...stored } = sent[0];
    expect(first).toMatchObject(stored);
    expect(buffer.size).toBe(0);
  });

  it('keeps what a failed hand-over could not queue and sends it first, with the same segment ids', async () => {
    const { buffer, queue } = bufferWithQueue({ intervalMs: 60_000, batchSize: 3 });
    queue.down = true;
    // Three full batches while the queue is down: each is built once and kept.
    for (const e of numbered(0, 9)) buffer.push(e);
    await buffer.flush();
    expect(buffer.size).toBe(9);
    queue.down = false;
    for (const e of numbered(9, 2)) buffer.push(e);
    await buffer.close();
    // Jobs of at most a batch each, oldest first, the kept segments unchanged (the worker
    // skips a segment it stored before the queue reported an error).
    expect(queue.jobs.map(entriesIn)).toEqual([3, 3, 3, 2]);
    expect(queue.jobs[0][0].id).toBe(queue.attempts[0][0].id);
    expect((await Promise.all(queue.jobs.map(requestIds))).flat()).toEqual(numbered(0, 11).map((e) => e.requestId));
    expect(buffer.size).toBe(0);
  });

  it('drops the oldest hand-overs past its bound, and new entries when nothing older is waiting, and counts them', async () => {
    const { buffer, queue } = bufferWithQueue({ intervalMs: 60_000, batchSize: 1000, maxBuffered: 5 });
    queue.down = true;
    for (const e of numbered(0, 4)) buffer.push(e);
    await buffer.flush();
    // r4 fills the bound; r5 makes room by dropping the failed hand-over (r0-r3).
    for (const e of numbered(4, 2)) buffer.push(e);
    expect(buffer.dropped).toBe(4);
    expect(buffer.size).toBe(2);
    // Nothing older left to drop: past the bound the newest entries go.
    for (const e of numbered(6, 5)) buffer.push(e);
    expect(buffer.size).toBe(5);
    expect(buffer.dropped).toBe(6);
    queue.down = false;
    await buffer.close();
    expect((await Promise.all(queue.jobs.map(requestIds))).flat()).toEqual(['r4', 'r5', 'r6', 'r7', 'r8']);
  });
});
