import { describe, expect, it } from 'vitest';
import type { Sql } from '../../src/db/sql.js';
import { arrivalTick, requestArrival, TableSync } from '../../src/modules/contents/list-cache/table-sync.js';

/**
 * The sharing rules of a table's change-log reads (list-cache/table-sync.ts), with the statement
 * answered by hand so that the order of events is the test's: which read a request may use
 * depends only on when each read started against when the request arrived. (The reads against
 * PostgreSQL, and read-your-writes across processes, are tested in conditional-reads and
 * list-cache tests.)
 */
function handAnsweredReads() {
  const pending: { total: number; answer: () => void }[] = [];
  const sql = (<T extends object>() =>
    new Promise<T[]>((resolve) => {
      const total = pending.length + 1;
      pending.push({ total, answer: () => resolve([{ snapshot: `${total}:${total}:`, total: String(total), published: '0', changes: null, counters: null }] as unknown as T[]) });
    })) as Sql;
  return { sql, pending };
}

const settled = async <T>(promise: Promise<T>): Promise<{ value: T } | 'pending'> => {
  const marker = Symbol('pending');
  const first = await Promise.race([promise, new Promise<typeof marker>((resolve) => setImmediate(() => resolve(marker)))]);
  return first === marker ? 'pending' : { value: first as T };
};

describe('TableSync: which change-log read a request uses', () => {
  it('a request whose own read is done does not wait for a later one another request started', async () => {
    const sync = new TableSync({ onBatch: () => {}, onReset: () => {} });
    const { sql, pending } = handAnsweredReads();
    const first = arrivalTick();
    const own = requestArrival.run(first, () => sync.sync(sql, 't'));
    pending[0].answer();
    expect((await own).total).toBe(1);

    // Another request arrives and starts read 2, which is still under way...
    const other = requestArrival.run(arrivalTick(), () => sync.sync(sql, 't'));
    expect(pending).toHaveLength(2);
    // ...when the first request asks again (an ETag's counters, then the list): read 1 started
    // after it arrived, so it is answered at once, from read 1.
    const again = await settled(requestArrival.run(first, () => sync.sync(sql, 't')));
    expect(again).toEqual({ value: expect.objectContaining({ total: 1 }) });
    expect(pending).toHaveLength(2);

    pending[1].answer();
    expect((await other).total).toBe(2);
  });

  it('a request that arrived after the last read started waits for a read that starts after it', async () => {
    const sync = new TableSync({ onBatch: () => {}, onReset: () => {} });
    const { sql, pending } = handAnsweredReads();
    requestArrival.run(arrivalTick(), () => sync.sync(sql, 't'));
    // Arrives while read 1 runs: read 1 may have missed a write answered just before.
    const late = requestArrival.run(arrivalTick(), () => sync.sync(sql, 't'));
    pending[0].answer();
    expect(await settled(late)).toBe('pending');
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(2);
    pending[1].answer();
    expect((await late).total).toBe(2);
    // Done reads that started before a request arrived are not used either.
    const later = requestArrival.run(arrivalTick(), () => sync.sync(sql, 't'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(3);
    pending[2].answer();
    expect((await later).total).toBe(3);
  });
});
