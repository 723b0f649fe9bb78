import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBoss } from '../../src/jobs/boss.js';
import { QUEUES } from '../../src/jobs/queues.js';
import { createLogger } from '../../src/shared/logger.js';
import { contentsPath, createRow, createTable, expectStatus, postRow, putRow, tablesPath } from '../contents/fixture.js';
import { upload, filesPath } from '../resources/fixture.js';
import {
  createWebhook,
  deliveries,
  ofType,
  pendingDeliveries,
  startReceiver,
  startWebhookEnv,
  verify,
  webhooksPath,
  type Receiver,
  type WebhookEnv,
} from './fixture.js';
import { until } from '../helpers/until.js';

/** Deliveries (docs/webhooks.md) end to end: API → outbox → fan-out worker → delivery worker → receiver. */
let env: WebhookEnv;
const receivers: Receiver[] = [];
beforeAll(async () => {
  env = await startWebhookEnv();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await env?.close();
});

async function receiver(script?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(script);
  receivers.push(r);
  return r;
}

describe('deliveries', () => {
  it('every event type arrives once, signed for the standardwebhooks package, with the documented body', async () => {
    const { w, t } = env;
    const r = await receiver();
    const hook = await createWebhook(w, { url: r.url, events: ['*'] });
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    expectStatus(await t.call('PUT', tablesPath(w, table.id), { body: { name: 'Renamed' } }), 200);
    const row = await createRow(w, table.id, { title: 'Hello' }, { status: 'DRAFT' });
    expectStatus(await putRow(w, table.id, row.id, { status: 'PUBLISHED' }), 200);
    expectStatus(await putRow(w, table.id, row.id, { status: 'DRAFT' }), 200);
    expect((await t.call('DELETE', contentsPath(w, table.id, row.id), { token: w.writeKey })).status).toBe(204);
    const file = await upload(w, { bytes: 'hello', filename: 'a.txt', type: 'text/plain' });
    expect(file.status, file.text).toBe(201);
    expectStatus(await t.call('PUT', filesPath(w, file.json.id), { token: w.writeKey, body: { name: 'b.txt' } }), 200);
    expect((await t.call('DELETE', filesPath(w, file.json.id), { token: w.writeKey })).status).toBe(204);
    expect((await t.call('DELETE', tablesPath(w, table.id))).status).toBe(204);

    const expected = [
      'tables.created', 'tables.updated', 'contents.created', 'contents.updated', 'contents.published',
      'contents.updated', 'contents.unpublished', 'contents.deleted', 'files.created', 'files.updated', 'files.deleted', 'tables.deleted',
    ];
    await until(() => r.requests.length >= expected.length, 10_000, 'all events');
    // Nothing more arrives: a sentinel write committed after all of the above goes down the same
    // outbox, fan-out and delivery path; once it has arrived, anything those writes emitted
    // (an extra event, a repeated delivery) was ahead of it.
    const sentinel = await createTable(w, [{ name: 'title', type: 'text' }]);
    await until(() => r.requests.some((q) => q.json?.data?.id === sentinel.id), 10_000, 'the sentinel tables.created');
    const requests = r.requests.filter((q) => q.json?.data?.id !== sentinel.id);
    expect(requests.map((q) => q.json.type).sort()).toEqual([...expected].sort());
    const ids = new Set<string>();
    for (const request of requests) {
      expect(verify(hook.secret, request)).toEqual(request.json);
      expect(request.headers['content-type']).toBe('application/json');
      expect(Object.keys(request.json)).toEqual(['id', 'type', 'projectId', 'createdAt', 'sequence', 'data']);
      expect(request.json).toMatchObject({ projectId: w.projectId });
      expect(request.headers['webhook-id']).toBe(request.json.id);
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      ids.add(request.json.id);
    }
    expect(ids.size).toBe(expected.length);
    expect(ofType(r, 'contents.deleted')[0].json.data).toMatchObject({ id: row.id, data: { title: 'Hello' } });
    expect(ofType(r, 'tables.created')[0].json.data).toMatchObject({ id: table.id, key: table.key });
    expect(ofType(r, 'files.updated')[0].json.data).toMatchObject({ id: file.json.id, name: 'b.txt' });

    const records = await until(async () => {
      const list = (await deliveries(w, hook.id)).filter((d) => ids.has(d.eventId));
      return list.length === expected.length && list;
    }, 5_000, 'delivery records');
    for (const d of records) expect(d).toMatchObject({ attempt: 1, statusCode: 200, error: null });
    expect(Object.keys(records[0]).sort()).toEqual(['attempt', 'createdAt', 'durationMs', 'error', 'eventId', 'id', 'statusCode', 'type']);
    const times = records.map((d) => d.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('500, 500, then 200: the same webhook-id three times and three records, attempt 1..3', async () => {
    const { w } = env;
    const r = await receiver([500, 500, 200]);
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const hook = await createWebhook(w, { url: r.url, events: ['contents.created'] });
    const row = await createRow(w, table.id, { title: 'retry me' });
    await until(() => r.requests.length >= 3, 10_000, 'three attempts');
    // No fourth attempt: the third is recorded and no delivery job of this webhook is left.
    await until(async () => (await deliveries(w, hook.id)).length >= 3 && (await pendingDeliveries(env.t, hook.id)) === 0, 5_000, 'no attempt left to run');
    expect(r.requests).toHaveLength(3);
    expect(new Set(r.requests.map((q) => q.headers['webhook-id']))).toEqual(new Set([r.requests[0].json.id]));
    expect(r.requests.map((q) => q.rawBody)).toEqual(Array(3).fill(r.requests[0].rawBody));
    for (const request of r.requests) verify(hook.secret, request);
    expect(r.requests[0].json.data.id).toBe(row.id);
    // WEBHOOK_RETRY_DELAYS=1,1,1: about a second (±10%) between attempts.
    for (const i of [1, 2]) expect(r.requests[i].at - r.requests[i - 1].at).toBeGreaterThanOrEqual(850);
    const records = await until(async () => {
      const list = await deliveries(w, hook.id);
      return list.length === 3 && list;
    }, 5_000, 'three records');
    expect(records.map((d) => [d.attempt, d.statusCode])).toEqual([[3, 200], [2, 500], [1, 500]]);
    expect(records[2].error).toMatch(/500/);
    expect(new Set(records.map((d) => d.eventId))).toEqual(new Set([r.requests[0].json.id]));
  });

  it('a refused write (422) emits nothing; the next valid one is delivered once', async () => {
    const { w } = env;
    const r = await receiver();
    const table = await createTable(w, [{ name: 'title', type: 'text', settings: { required: true } }]);
    await createWebhook(w, { url: r.url, events: ['contents.created', 'contents.published'] });
    expect((await postRow(w, table.id, { data: {} })).status).toBe(422);
    expect((await postRow(w, table.id, { data: { title: 5 } })).status).toBe(422);
    const row = await createRow(w, table.id, { title: 'valid' });
    await until(() => r.requests.length >= 2, 5_000, 'the valid row');
    // Sentinel: a row written after the refused ones; once its events arrived, theirs would have.
    const sentinel = await createRow(w, table.id, { title: 'sentinel' });
    await until(() => r.requests.filter((q) => q.json?.data?.id === sentinel.id).length === 2, 5_000, 'the sentinel row');
    expect(r.requests.filter((q) => q.json?.data?.id !== sentinel.id).map((q) => `${q.json.type}:${q.json.data.id}`).sort()).toEqual([`contents.created:${row.id}`, `contents.published:${row.id}`]);
  });

  it('tableIds narrows contents events to those tables (not tables.* events)', async () => {
    const { w } = env;
    const r = await receiver();
    const [a, b] = [await createTable(w, [{ name: 'title', type: 'text' }]), await createTable(w, [{ name: 'title', type: 'text' }])];
    await createWebhook(w, { url: r.url, events: ['contents.created', 'tables.updated'], tableIds: [a.id] });
    await createRow(w, b.id, { title: 'not for us' });
    const mine = await createRow(w, a.id, { title: 'for us' });
    expectStatus(await env.t.call('PUT', tablesPath(w, b.id), { body: { name: 'B2' } }), 200);
    await until(() => r.requests.length >= 2, 5_000, 'two events');
    // Sentinel: a later row of table a; once it arrived, the earlier row of b would have too.
    const sentinel = await createRow(w, a.id, { title: 'sentinel' });
    await until(() => r.requests.some((q) => q.json?.data?.id === sentinel.id), 5_000, 'the sentinel row');
    expect(r.requests.filter((q) => q.json?.data?.id !== sentinel.id).map((q) => `${q.json.type}:${q.json.data.id}`).sort()).toEqual([`contents.created:${mine.id}`, `tables.updated:${b.id}`]);
  });

  it('manual retry: 200 with the new delivery record, and the receiver gets the event again', async () => {
    const { w, t } = env;
    const r = await receiver([500]);
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const hook = await createWebhook(w, { url: r.url, events: ['contents.created'] });
    await createRow(w, table.id, { title: 'later' });
    // 1 + 3 retries, all 500: exhausted.
    const failed = await until(async () => {
      const list = await deliveries(w, hook.id);
      return list.length === 4 && list;
    }, 10_000, 'four failed attempts');
    expect(failed.every((d) => d.statusCode === 500)).toBe(true);
    r.script = [200];
    const res = await t.call('POST', `${webhooksPath(w, hook.id)}/deliveries/${failed[3].id}/retry`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ eventId: failed[3].eventId, type: 'contents.created', attempt: 5, statusCode: 200, error: null });
    expect(res.json.id).not.toBe(failed[3].id);
    expect(r.requests).toHaveLength(5);
    expect(r.requests[4].headers['webhook-id']).toBe(failed[3].eventId);
    verify(hook.secret, r.requests[4]);
    const after = await deliveries(w, hook.id);
    expect(after[0]).toEqual(res.json);
    // A failing manual retry is recorded too, and schedules nothing.
    r.script = [503];
    const again = await t.call('POST', `${webhooksPath(w, hook.id)}/deliveries/${failed[0].id}/retry`);
    expect(again.json).toMatchObject({ attempt: 6, statusCode: 503 });
    // Schedules nothing: no delivery job of this webhook is waiting to run.
    expect(await pendingDeliveries(env.t, hook.id)).toBe(0);
    expect(r.requests).toHaveLength(6);
  });

  it('rotate-secret: deliveries carry two signatures; each secret verifies with standardwebhooks', async () => {
    const { w, t } = env;
    const r = await receiver();
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const hook = await createWebhook(w, { url: r.url, events: ['contents.created'] });
    const rotated = await t.call('POST', `${webhooksPath(w, hook.id)}/rotate-secret`);
    expect(rotated.status).toBe(200);
    await createRow(w, table.id, { title: 'signed twice' });
    const [request] = await until(() => r.requests.length >= 1 && r.requests, 5_000, 'the delivery');
    const signatures = String(request.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(rotated.json.secret, request)).toEqual(request.json);
    expect(verify(hook.secret, request)).toEqual(request.json);
    // Each signature on its own is the one of one secret.
    expect(verify(rotated.json.secret, { ...request, headers: { ...request.headers, 'webhook-signature': signatures[0] } })).toEqual(request.json);
    expect(verify(hook.secret, { ...request, headers: { ...request.headers, 'webhook-signature': signatures[1] } })).toEqual(request.json);
  });

  it('retention: events and their attempts older than LOG_RETENTION_DAYS go; pending ones stay', async () => {
    const { w } = env;
    const r = await receiver([200]);
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const hook = await createWebhook(w, { url: r.url, events: ['contents.created'] });
    await createRow(w, table.id, { title: 'old' });
    await createRow(w, table.id, { title: 'old too' });
    await until(async () => (await deliveries(w, hook.id)).length === 2, 5_000, 'two deliveries');
    const db = new pg.Client({ connectionString: env.t.db.url });
    await db.connect();
    const boss = await startBoss(env.t.db.url, createLogger('silent'), 'api');
    try {
      const { rows } = await db.query('select event_id from webhook_event where webhook_id = $1 order by created_at', [hook.id]);
      await db.query(`update webhook_event set created_at = now() - interval '31 days' where webhook_id = $1`, [hook.id]);
      await db.query(`update webhook_event set state = 'pending' where webhook_id = $1 and event_id = $2`, [hook.id, rows[1].event_id]);
      await boss.send(QUEUES.webhookRetention.name, {});
      await until(async () => (await deliveries(w, hook.id)).length === 1, 10_000, 'the old delivery to go');
      const left = await db.query('select event_id from webhook_event where webhook_id = $1', [hook.id]);
      expect(left.rows.map((x) => x.event_id)).toEqual([rows[1].event_id]);
    } finally {
      await boss.stop({ graceful: false });
      await db.end();
    }
  });
});
