import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, postRow, putRow, type World } from './fixture.js';

/**
 * The transactional outbox (docs/webhooks.md#how-it-runs): each change records its events in `event_outbox` in its own
 * transaction — a committed change has them, a refused or rolled-back one has none. (No worker
 * runs here, so they stay in the outbox; test/webhooks covers the relay and delivery.)
 */
let t: TestApi;
let w: World;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

/** Events queued for one table as `type:row id`, sorted (events of one transaction share a timestamp). */
async function events(tableId: string): Promise<string[]> {
  const { rows } = await db.query(
    `select payload as data from event_outbox where payload->>'tableId' = $1`,
    [tableId],
  );
  return rows.map((r) => `${r.data.type}:${r.data.data.id}`).sort();
}

describe('events are recorded with the change that caused them', () => {
  it('create, publish, unpublish, update and delete each queue their events with the documented payload', async () => {
    const table = await createTable(w, [{ name: 'sku', type: 'text', settings: { unique: true } }]);
    const before = await events(table.id);
    expect(before).toEqual([`tables.created:${table.id}`]);
    const draft = await createRow(w, table.id, { sku: 'A' }, { status: 'DRAFT' });
    expectStatus(await putRow(w, table.id, draft.id, { status: 'PUBLISHED' }), 200);
    expectStatus(await putRow(w, table.id, draft.id, { status: 'DRAFT' }), 200);
    const published = await createRow(w, table.id, { sku: 'B' });
    expect((await t.call('DELETE', contentsPath(w, table.id, published.id), { token: w.writeKey })).status).toBe(204);
    expect(await events(table.id)).toEqual([
      `tables.created:${table.id}`,
      `contents.created:${draft.id}`,
      `contents.updated:${draft.id}`,
      `contents.published:${draft.id}`,
      `contents.updated:${draft.id}`,
      `contents.unpublished:${draft.id}`,
      `contents.created:${published.id}`,
      `contents.published:${published.id}`,
      `contents.deleted:${published.id}`,
    ].sort());
    const { rows } = await db.query(`select payload as data from event_outbox where payload->>'type' = 'contents.deleted' and payload->'data'->>'id' = $1`, [published.id]);
    expect(rows[0].data).toMatchObject({ type: 'contents.deleted', projectId: w.projectId, tableId: table.id, data: { id: published.id, data: { sku: 'B' } } });
    expect(rows[0].data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(rows[0].data.createdAt)).not.toBeNaN();
  });

  it('refused changes record nothing: 422, 409 unique, 409 transition', async () => {
    const table = await createTable(w, [{ name: 'sku', type: 'text', settings: { unique: true, required: true } }]);
    const row = await createRow(w, table.id, { sku: 'A' }, { status: 'ARCHIVED' });
    const recorded = await events(table.id);
    expect((await postRow(w, table.id, { data: {} })).status).toBe(422);
    expect((await postRow(w, table.id, { data: { sku: 'A' } })).status).toBe(409);
    expect((await putRow(w, table.id, row.id, { status: 'PUBLISHED' })).status).toBe(409);
    expect(await events(table.id)).toEqual(recorded);
  });

  it('files: upload, rename and delete queue files.created, files.updated and files.deleted', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const res = await fetch(`${t.url}/v1/${w.projectId}/files`, { method: 'POST', headers: { authorization: `Bearer ${w.writeKey}` }, body: form });
    expect(res.status).toBe(201);
    const file = (await res.json()) as { id: string };
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/files/${file.id}`, { token: w.writeKey, body: { name: 'b.txt' } }), 200);
    expect((await t.call('DELETE', `/v1/${w.projectId}/files/${file.id}`, { token: w.writeKey })).status).toBe(204);
    const { rows } = await db.query(
      `select payload as data from event_outbox where payload->>'projectId' = $1 and payload->'data'->>'id' = $2`,
      [w.projectId, file.id],
    );
    expect(rows.map((r) => r.data.type).sort()).toEqual(['files.created', 'files.deleted', 'files.updated']);
    expect(rows.find((r) => r.data.type === 'files.updated')!.data.data).toMatchObject({ id: file.id, name: 'b.txt', size: 5 });
  });
});
