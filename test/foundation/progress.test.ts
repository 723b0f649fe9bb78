import { afterAll, describe, expect, it } from 'vitest';
import { adminToken, seed } from '../../bench/setup.js';
import { createProgress } from '../../src/shared/progress.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** Progress output of long CLI work (the benchmark's seeding). */

/** A sink that records what was written, as a terminal or as a pipe. */
function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (text: string) => writes.push(text) } };
}

let t: TestApi | undefined;
afterAll(() => t?.close());

describe('createProgress', () => {
  it('in a log: lines with count, percentage, rate and time left, at most one per interval, and the last one always', () => {
    let clock = 0;
    const { writes, stream } = sink(false);
    const progress = createProgress('rows', 1_000_000, { stream, everyMs: 2_000, now: () => clock });
    clock = 1_000;
    progress.update(100_000);
    clock = 1_500;
    progress.update(150_000); // within 2 s of the previous line: skipped
    clock = 4_000;
    progress.update(400_000);
    clock = 10_000;
    progress.update(1_000_000);
    expect(writes).toEqual([
      'rows 100,000/1,000,000 (10%, 100,000/s, ~9 s left)\n',
      'rows 400,000/1,000,000 (40%, 100,000/s, ~6 s left)\n',
      'rows 1,000,000/1,000,000 (100%, 100,000/s, in 10 s)\n',
    ]);
  });

  it('at a terminal: one line rewritten in place, ended when done', () => {
    let clock = 0;
    const { writes, stream } = sink(true);
    const progress = createProgress('rows', 200, { stream, now: () => clock });
    clock = 100_000;
    progress.update(100);
    clock = 200_000;
    progress.update(200);
    expect(writes).toEqual(['\rrows 100/200 (50%, 1/s, ~1 min 40 s left)\x1b[K', '\rrows 200/200 (100%, 1/s, in 3 min 20 s)\x1b[K\n']);
  });
});

describe('bench seeding', () => {
  it('reports rows inserted out of the total as it goes', { timeout: 60_000 }, async () => {
    // The benchmark's fixed admin token, so that its seed can create the schema through the API.
    t = await startTestApi({ ADMIN_TOKEN: adminToken, ADMIN_EMAIL: 'bench@example.com' });
    const { writes, stream } = sink(false);
    const fixture = await seed(t.url, t.db.url, 25_000, createProgress('[bench] rows inserted', 25_000, { stream, everyMs: 0 }));
    expect(writes).toHaveLength(2);
    expect(writes[0]).toMatch(/^\[bench\] rows inserted 20,000\/25,000 \(80%, [\d,]+\/s, ~\d+ s left\)\n$/);
    expect(writes[1]).toMatch(/^\[bench\] rows inserted 25,000\/25,000 \(100%, [\d,]+\/s, in \d+ s\)\n$/);
    const listed = await t.call('GET', `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents?size=1`, { token: fixture.writeKey });
    expect(listed.json.pagination.total).toBe(25_000);
  });
});
