import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildProcess, type SecondApi } from '../auth/second-process.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { builtArgs, root } from '../helpers/child.js';
import { until } from '../helpers/until.js';
import { buildWorld, createTable, expectStatus, type Table, type World } from '../contents/fixture.js';
import { importRows, lockItems, releaseEvents, releaseOf, releaseState, revisionsOfRelease, rowEventCounts, rowStates } from './fixture.js';

/**
 * docs/releases.md#publishing: a release is one transaction, so a process killed (-9) while it
 * publishes leaves all of it or none of it, for the API (a publish by request) and the worker (a
 * scheduled publish). The compiled processes run as children (dist/, `npm run build`); the
 * outbox stays unrelayed (no outbox worker), so the events written are counted where they are.
 */
let t: TestApi;
let w: World;
let posts: Table;
let db: pg.Pool;
const apis: SecondApi[] = [];
const workers: ChildProcess[] = [];
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  db = new pg.Pool({ connectionString: t.db.url, max: 3 });
});
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await Promise.all(apis.map((api) => api.close()));
  await db?.end();
  await t?.close();
});

const ROWS = 1000;

async function childApi(): Promise<SecondApi> {
  const api = await startChildProcess(t, {});
  apis.push(api);
  return api;
}

/** The publisher worker, compiled, as its own process (node itself: SIGKILL reaches the worker). */
function childWorker(): ChildProcess {
  const child = spawn(process.execPath, builtArgs('workers/main.ts'), {
    cwd: root,
    env: { ...process.env, DATABASE_URL: t.db.url, WORKERS: 'publisher', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  workers.push(child);
  return child;
}

async function sigkill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Waits until the database has ended the backend `pid` (a killed client's session is rolled back then). */
const backendGone = (pid: number) =>
  until(async () => (await db.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount === 0, 30_000, `backend ${pid} to end`);

/** A release of ROWS drafts to publish; with `body`, e.g. its publishAt. */
async function draftRelease(label: string, body?: Record<string, unknown>) {
  const ids = await importRows(w, posts.id, ROWS, 'DRAFT', label);
  const releaseId = await releaseOf(w, posts.id, ids.map((id) => ({ id, action: 'publish' as const })), body);
  return { ids, releaseId };
}

/** Nothing of the release happened: every row as imported, the release open, no revision or event of it. */
async function expectNothingApplied(ids: string[], releaseId: string) {
  const rows = await rowStates(db, ids);
  expect(rows.filter((r) => r.status !== 'DRAFT' || r.version !== 1)).toEqual([]);
  expect((await releaseState(db, releaseId)).status).toBe('open');
  expect((await revisionsOfRelease(db, releaseId)).size).toBe(0);
  expect((await rowEventCounts(db, 'contents.published', ids)).size).toBe(0);
  expect(await releaseEvents(db, releaseId)).toEqual([]);
}

/** All of the release happened, once: every row published at one instant, one revision and one event each, one release.published. */
async function expectAppliedOnce(ids: string[], releaseId: string) {
  const rows = await rowStates(db, ids);
  expect(rows.filter((r) => r.status !== 'PUBLISHED' || r.version !== 2)).toEqual([]);
  expect(new Set(rows.map((r) => r.publishedAt)).size).toBe(1);
  expect((await releaseState(db, releaseId)).status).toBe('published');
  const revisions = await revisionsOfRelease(db, releaseId);
  expect([revisions.size, [...revisions.values()].every((n) => n === 1)]).toEqual([ids.length, true]);
  const events = await rowEventCounts(db, 'contents.published', ids);
  expect([events.size, [...events.values()].every((n) => n === 1)]).toEqual([ids.length, true]);
  expect(await releaseEvents(db, releaseId)).toEqual([{ releaseId, count: ids.length }]);
}

/** The release is either wholly applied or not at all; answers which. */
async function expectAllOrNothing(ids: string[], releaseId: string): Promise<'all' | 'nothing'> {
  const statuses = new Set((await rowStates(db, ids)).map((r) => r.status));
  expect(statuses.size, `rows in ${[...statuses].join(' and ')}`).toBe(1);
  if (statuses.has('PUBLISHED')) {
    await expectAppliedOnce(ids, releaseId);
    return 'all';
  }
  await expectNothingApplied(ids, releaseId);
  return 'nothing';
}

const publishThrough = (api: SecondApi, releaseId: string) => api.call('POST', `/v1/${w.projectId}/releases/${releaseId}/publish`, { token: w.writeKey });

describe('an API process killed while it publishes a release of 1,000 rows', () => {
  it('held before its commit (its items locked elsewhere): nothing is applied; a new process publishes it whole', { timeout: 180_000 }, async () => {
    const { ids, releaseId } = await draftRelease('held');
    const lock = await lockItems(t.db.url, releaseId);
    try {
      const doomed = await childApi();
      const answer = publishThrough(doomed, releaseId).catch((error: unknown) => error);
      // The publish has updated all 1,000 rows in its open transaction and waits to mark its items done.
      const [blocked] = await until(() => lock.waiting(db), 60_000, 'the publish to apply its items');
      expect(blocked.query).toMatch(/update release_item/);
      await doomed.kill!('SIGKILL');
      expect(await answer).toBeInstanceOf(Error);
      await lock.release();
      await backendGone(blocked.pid);
    } finally {
      await lock.release();
    }
    await expectNothingApplied(ids, releaseId);

    const restarted = await childApi();
    expect(expectStatus(await publishThrough(restarted, releaseId), 200).status).toBe('published');
    await expectAppliedOnce(ids, releaseId);
  });

  it('killed at whatever point the publish has reached: all of it or none of it; if none, it publishes later', { timeout: 180_000 }, async () => {
    const { ids, releaseId } = await draftRelease('unheld');
    const doomed = await childApi();
    const answer = publishThrough(doomed, releaseId).catch((error: unknown) => error);
    // In flight: a session of the database in a transaction that has written, working on contents.
    const working = await until(async () => {
      const { rows } = await db.query<{ pid: number }>(
        `select pid from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null and query ~ 'contents'`,
      );
      if (rows.length > 0) return rows.map((r) => r.pid);
      return (await releaseState(db, releaseId)).status === 'published' && [];
    }, 60_000, 'the publish to be under way', 5);
    await doomed.kill!('SIGKILL');
    await answer;
    // The killed process's session ends, rolled back unless its commit was through.
    for (const pid of working) await backendGone(pid);
    const outcome = await expectAllOrNothing(ids, releaseId);
    console.info(`release killed mid-publish: ${outcome === 'all' ? 'committed before the kill' : 'rolled back'}`);
    if (outcome === 'nothing') {
      expect(expectStatus(await publishThrough(await childApi(), releaseId), 200).status).toBe('published');
      await expectAppliedOnce(ids, releaseId);
    }
  });
});

describe('a worker killed while it publishes a scheduled release of 1,000 rows', () => {
  it('nothing is applied; a restarted worker publishes it exactly once', { timeout: 180_000 }, async () => {
    // Due at once: no worker runs until the item locks below are held.
    const { ids, releaseId } = await draftRelease('scheduled', { name: 'Scheduled', publishAt: new Date(Date.now() - 1000).toISOString() });
    const lock = await lockItems(t.db.url, releaseId);
    try {
      const doomed = childWorker();
      const [blocked] = await until(() => lock.waiting(db), 60_000, 'the scheduled publish to apply its items');
      expect(blocked.query).toMatch(/update release_item/);
      await sigkill(doomed);
      await lock.release();
      await backendGone(blocked.pid);
    } finally {
      await lock.release();
    }
    await expectNothingApplied(ids, releaseId);
    expect((await releaseState(db, releaseId)).publishAt).not.toBeNull();

    childWorker();
    await until(async () => (await releaseState(db, releaseId)).status === 'published', 60_000, 'the restarted worker to publish the release', 100);
    await expectAppliedOnce(ids, releaseId);
  });
});
