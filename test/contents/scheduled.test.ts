import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createRow, createTable, expectStatus, getRow, list, putRow, type World } from './fixture.js';
import { until } from '../helpers/until.js';

/** docs/contents.md#statuses: SCHEDULED contents are published by a worker at publishAt (within 5 s), firing contents.published. */
let t: TestApi;
let w: World;
let workers: RunningWorkers;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['publisher']);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await workers?.stop();
  await t?.close();
});

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const publishedEvents = async (id: string) =>
  Number((await db.query(`select count(*) as n from event_outbox where payload->>'type' = 'contents.published' and payload->'data'->>'id' = $1`, [id])).rows[0].n);

describe('scheduled publishing', () => {
  it('a SCHEDULED row becomes PUBLISHED within 5 s of publishAt, visible to read keys, with one contents.published', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const publishAt = Date.now() + 1500;
    const row = await createRow(w, table.id, { title: 'later' }, { status: 'SCHEDULED', publishAt: new Date(publishAt).toISOString() });
    expect((await getRow(w, table.id, row.id, w.readKey)).status).toBe(404);
    const published: { status: string; publishedAt: string; publishAt: string | null } = await until(async () => {
      const res = await getRow(w, table.id, row.id, w.readKey);
      return res.status === 200 && res.json;
    }, publishAt + 5000 - Date.now(), 'publication within 5 s of publishAt', 200);
    expect(published.status).toBe('PUBLISHED');
    expect(published.publishAt).toBeNull();
    expect(Date.parse(published.publishedAt)).toBeGreaterThanOrEqual(publishAt - 5);
    expect(await publishedEvents(row.id)).toBe(1);
    expect((await list(w, table.id, w.readKey)).pagination.total).toBe(1);
  });

  it('cancelling (SCHEDULED → DRAFT) or rescheduling later keeps the row unpublished at the old time', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const cancelled = await createRow(w, table.id, { title: 'c' }, { status: 'SCHEDULED', publishAt: inMs(1000) });
    const moved = await createRow(w, table.id, { title: 'm' }, { status: 'SCHEDULED', publishAt: inMs(1000) });
    expectStatus(await putRow(w, table.id, cancelled.id, { status: 'DRAFT' }), 200);
    expectStatus(await putRow(w, table.id, moved.id, { publishAt: inMs(60_000) }), 200);
    // Sentinel: a row due at the same time, scheduled after both changes. Once the scheduler has
    // published it, it has run past the old time, and would have published the other two by then.
    const sentinel = await createRow(w, table.id, { title: 's' }, { status: 'SCHEDULED', publishAt: inMs(1000) });
    await until(async () => (await getRow(w, table.id, sentinel.id)).json.status === 'PUBLISHED', 10_000, 'the sentinel row to be published', 100);
    expect((await getRow(w, table.id, cancelled.id)).json.status).toBe('DRAFT');
    const stillScheduled = (await getRow(w, table.id, moved.id)).json;
    expect([stillScheduled.status, Date.parse(stillScheduled.publishAt) > Date.now() + 50_000]).toEqual(['SCHEDULED', true]);
    expect(await publishedEvents(cancelled.id)).toBe(0);
    expect(await publishedEvents(moved.id)).toBe(0);
  });
});
