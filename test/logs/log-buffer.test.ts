import { describe, expect, it } from 'vitest';
import { RequestLogBuffer, type RequestLogEntry } from '../../src/modules/logs/log-buffer.js';
import { createLogger } from '../../src/shared/logger.js';
import { entry } from './fixture.js';

const PROJECT = '0190b0a0-0000-7000-8000-000000000001';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RequestLogBuffer', () => {
  it('hands over in batches per interval while entries keep arriving, however slow the queue is', async () => {
    const batches: RequestLogEntry[][] = [];
    // A slow queue: each hand-over takes 30 ms, while entries arrive every millisecond.
    const buffer = new RequestLogBuffer(async (entries) => {
      batches.push(entries);
      await sleep(30);
    }, createLogger('silent'), { intervalMs: 100, batchSize: 500 });
    const end = Date.now() + 1000;
    let pushed = 0;
    while (Date.now() < end) {
      buffer.push(entry(PROJECT, new Date()));
      pushed++;
      await sleep(1);
    }
    await buffer.close();
    expect(batches.flat().length).toBe(pushed);
    // About one hand-over per interval (10 in a second), not one per few entries.
    expect(batches.length).toBeLessThanOrEqual(20);
  });

  it('hands over at once when a batch is full, and keeps entries when the queue fails', async () => {
    let fail = true;
    const batches: RequestLogEntry[][] = [];
    const buffer = new RequestLogBuffer(async (entries) => {
      if (fail) throw new Error('queue down');
      batches.push(entries);
    }, createLogger('silent'), { intervalMs: 60_000, batchSize: 3 });
    for (let i = 0; i < 3; i++) buffer.push(entry(PROJECT, new Date()));
    await buffer.flush();
    expect(buffer.size).toBe(3);
    fail = false;
    await buffer.close();
    expect(batches.map((b) => b.length)).toEqual([3]);
    expect(buffer.size).toBe(0);
  });

  it('drops the oldest entries past its bound and counts them', async () => {
    const buffer = new RequestLogBuffer(async () => {
      throw new Error('queue down');
    }, createLogger('silent'), { intervalMs: 60_000, batchSize: 1000, maxBuffered: 5 });
    for (let i = 0; i < 8; i++) buffer.push(entry(PROJECT, new Date()));
    expect(buffer.size).toBe(5);
    expect(buffer.dropped).toBe(3);
    await buffer.close();
  });
});
