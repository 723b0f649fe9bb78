import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { builtArgs, root } from '../helpers/child.js';
import { until } from '../helpers/until.js';
import { buildWorld, createTable, type Table, type World } from '../contents/fixture.js';
import { importRows, releaseEvents, releaseOf, releaseState, revisionsOfRelease, rowEventCounts, rowStates } from './fixture.js';

/**
 * docs/releases.md#scheduling: scheduled releases published by two publisher workers (compiled,
 * `npm run build`, real processes on one database) are each published exactly once. How late
 * they were is printed, not asserted (the bound is measured by `npm run bench -- --only R1-release`).
 */
let t: TestApi;
let w: World;
let posts: Table;
let db: pg.Pool;
const workers: { child: ChildProcess; output: () => string }[] = [];

/** The publisher worker as a process of its own, logging JSON lines at info. */
function startWorker() {
  const child = spawn(process.execPath, builtArgs('workers/main.ts'), {
    cwd: root,
    env: { ...process.env, DATABASE_URL: t.db.url, WORKERS: 'publisher', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  const worker = { child, output: () => text };
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  db = new pg.Pool({ connectionString: t.db.url, max: 2 });
  for (let n = 0; n < 2; n++) startWorker();
  await until(() => workers.every((x) => x.output().includes('workers started')), 60_000, 'both workers to start', 100);
}, 120_000);
afterAll(async () => {
  for (const { child } of workers) child.kill('SIGKILL');
  await db?.end();
  await t?.close();
});

/** Releases published per worker, from its log lines ("published scheduled releases"). */
const publishedBy = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.includes('published scheduled releases'))
    .reduce((sum, line) => sum + (JSON.parse(line) as { releases: number }).releases, 0);

describe('scheduled releases and two publisher processes', () => {
  it('each release due at the same instant is published once, by one of them', { timeout: 120_000 }, async () => {
    const RELEASES = 3;
    const ROWS = 10;
    const rows = await Promise.all(Array.from({ length: RELEASES }, (_, n) => importRows(w, posts.id, ROWS, 'DRAFT', `due ${n}`)));
    // Far enough ahead to add the items first; both workers wait for it.
    const publishAt = new Date(Date.now() + 5000).toISOString();
    const releases = await Promise.all(
      rows.map((ids, n) => releaseOf(w, posts.id, ids.map((id) => ({ id, action: 'publish' as const })), { name: `Due ${n}`, publishAt })),
    );
    expect(Date.now(), 'the items were added before publishAt').toBeLessThan(Date.parse(publishAt));

    await until(async () => {
      const states = await Promise.all(releases.map((id) => releaseState(db, id)));
      return states.every((s) => s.status === 'published');
    }, 30_000, 'the releases to be published', 50);

    for (const [n, releaseId] of releases.entries()) {
      const ids = rows[n];
      expect((await rowStates(db, ids)).filter((r) => r.status !== 'PUBLISHED' || r.version !== 2)).toEqual([]);
      const revisions = await revisionsOfRelease(db, releaseId);
      expect([revisions.size, [...revisions.values()].every((count) => count === 1)]).toEqual([ROWS, true]);
      const events = await rowEventCounts(db, 'contents.published', ids);
      expect([events.size, [...events.values()].every((count) => count === 1)]).toEqual([ROWS, true]);
      expect(await releaseEvents(db, releaseId)).toEqual([{ releaseId, count: ROWS }]);
    }
    const byWorker = workers.map((x) => publishedBy(x.output()));
    expect(byWorker.reduce((a, b) => a + b, 0)).toBe(RELEASES);
    const late = await Promise.all(releases.map(async (id) => (await releaseState(db, id)).lateMs!.toFixed(1)));
    console.info(`scheduled releases published by the workers: ${byWorker.join(' + ')}; publishedAt - publishAt: ${late.join(', ')} ms`);
  });
});
