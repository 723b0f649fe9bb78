import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRow, createTable, type Table } from '../contents/fixture.js';
import {
  createWebhook,
  deliveries,
  getWebhook,
  pendingDeliveries,
  startReceiver,
  startWebhookEnv,
  webhooksPath,
  type Receiver,
  type WebhookEnv,
} from './fixture.js';
import { until } from '../helpers/until.js';

/**
 * Failure handling (docs/webhooks.md#retries-and-disabling): slow and dead endpoints, 410, auto-disable and re-enable,
 * Retry-After, and a worker stopped in the middle of a delivery.
 */
let env: WebhookEnv;
let db: pg.Client;
const receivers: Receiver[] = [];
beforeAll(async () => {
  env = await startWebhookEnv();
  db = new pg.Client({ connectionString: env.t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await Promise.all(receivers.map((r) => r.close()));
  await env?.close();
});

async function receiver(script?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(script);
  receivers.push(r);
  return r;
}

/** A receiver and a webhook for `contents.created` of a table of its own, and a row writer. */
async function scenario(script: Parameters<typeof startReceiver>[0]) {
  const r = await receiver(script);
  const table: Table = await createTable(env.w, [{ name: 'title', type: 'text' }]);
  const hook = await createWebhook(env.w, { url: r.url, events: ['contents.created'], tableIds: [table.id] });
  const row = (title: string) => createRow(env.w, table.id, { title });
  return { r, hook, row, table };
}

/**
 * A second, healthy webhook on `table`: the sentinel of "nothing arrives". One fan-out commits an
 * event's deliveries for every webhook at once, so once the sentinel got an event, any delivery
 * of it to another webhook is either done or a job still waiting.
 */
async function sentinelOn(table: Table) {
  const watch = await receiver([200]);
  await createWebhook(env.w, { url: watch.url, events: ['contents.created'], tableIds: [table.id] });
  return (rowId: string) => until(() => watch.requests.some((q) => q.json?.data?.id === rowId), 5_000, 'the sentinel delivery');
}

/** Resolves once no delivery job of the webhook is left to run: nothing more can reach it. */
const settled = (webhookId: string) =>
  until(async () => (await pendingDeliveries(env.t, webhookId)) === 0, 10_000, 'no delivery job left to run', 50);

describe('isolation', () => {
  it('an endpoint that never answers does not delay another endpoint', async () => {
    const { r: hang, hook: dead, row } = await scenario(['hang']);
    const healthy = await receiver([200]);
    await createWebhook(env.w, { url: healthy.url, events: ['contents.created'] });
    // More events for the hanging endpoint than the delivery worker has loops: without a cap per
    // webhook they would all be stuck there for 10 s.
    for (let i = 0; i < 40; i++) await row(`warm ${i}`);
    await until(() => hang.requests.length >= 1, 5_000, 'the hanging endpoint to be called');
    await until(() => healthy.requests.length >= 40, 5_000, 'the healthy endpoint to catch up');
    for (let i = 0; i < 10; i++) {
      const written = Date.now();
      const created = await row(`measured ${i}`);
      const request = await until(() => healthy.requests.find((q) => q.json.data.id === created.id), 3_000, 'the healthy delivery');
      expect(request.at - written, 'write → healthy delivery').toBeLessThan(1_000);
    }
    // A few attempts are stuck at the hanging endpoint meanwhile (each bounded by the 10 s timeout).
    expect(hang.requests.length).toBeLessThan(40);
    expect(await deliveries(env.w, dead.id)).toHaveLength(0);
    expect((await env.t.call('DELETE', webhooksPath(env.w, dead.id))).status).toBe(204);
    await hang.close();
  });
});

describe('disabling', () => {
  it('410 Gone disables the webhook at once: one attempt, no retries', async () => {
    const { r, hook, row, table } = await scenario([410]);
    await row('gone');
    const disabled = await until(async () => {
      const current = await getWebhook(env.w, hook.id);
      return !current.active && current;
    }, 5_000, 'the webhook to be disabled');
    expect(disabled.disabledReason).toMatch(/410/);
    await settled(hook.id);
    expect(r.requests).toHaveLength(1);
    expect((await deliveries(env.w, hook.id)).map((d) => [d.attempt, d.statusCode])).toEqual([[1, 410]]);
    const sentinelGot = await sentinelOn(table);
    const later = await row('after gone');
    await sentinelGot(later.id);
    await settled(hook.id);
    expect(r.requests).toHaveLength(1);
  });

  it('5 consecutive events that exhaust their retries disable the webhook; active: true resumes new events', async () => {
    const { r, hook, row, table } = await scenario([500]);
    // Four exhausted events: still active (1 + 3 retries each with WEBHOOK_RETRY_DELAYS=1,1,1).
    for (let i = 0; i < 4; i++) await row(`fail ${i}`);
    await until(async () => (await deliveries(env.w, hook.id)).length === 16, 15_000, '16 attempts');
    expect(await getWebhook(env.w, hook.id)).toMatchObject({ active: true, disabledReason: null });
    await row('fail 4');
    const disabled = await until(async () => {
      const current = await getWebhook(env.w, hook.id);
      return !current.active && current;
    }, 10_000, 'auto-disable');
    expect(disabled.disabledReason).toMatch(/5 consecutive/);
    expect(await deliveries(env.w, hook.id)).toHaveLength(20);
    const { rows } = await db.query('select consecutive_failures from webhook where id = $1', [hook.id]);
    expect(rows[0].consecutive_failures).toBe(5);

    // Disabled: new events are not delivered.
    const sentinelGot = await sentinelOn(table);
    const unsent = await row('while disabled');
    await sentinelGot(unsent.id);
    await settled(hook.id);
    expect(r.requests).toHaveLength(20);

    r.script = [200];
    const enabled = await env.t.call('PUT', webhooksPath(env.w, hook.id), { body: { active: true } });
    expect(enabled.json).toMatchObject({ active: true, disabledReason: null });
    const fresh = await row('after re-enable');
    await until(() => r.requests.find((q) => q.json.data.id === fresh.id), 5_000, 'delivery after re-enabling');
    await settled(hook.id);
    expect(r.requests).toHaveLength(21);
    const after = await db.query('select consecutive_failures from webhook where id = $1', [hook.id]);
    expect(after.rows[0].consecutive_failures).toBe(0);
  });

  it('a webhook set inactive stops its pending retries', async () => {
    const { r, hook, row } = await scenario([500]);
    await row('stop me');
    await until(() => r.requests.length >= 1, 5_000, 'first attempt');
    expect((await env.t.call('PUT', webhooksPath(env.w, hook.id), { body: { active: false } })).json).toMatchObject({ active: false, disabledReason: null });
    // The retry due a second later is dropped, not sent: once no job is left, none can be.
    await settled(hook.id);
    expect(r.requests).toHaveLength(1);
  });
});

describe('retry timing', () => {
  it('Retry-After on 503 is honoured when longer than the next delay', async () => {
    const { r, row } = await scenario([{ status: 503, headers: { 'retry-after': '3' } }, 200]);
    await row('later please');
    await until(() => r.requests.length >= 2, 8_000, 'the second attempt');
    expect(r.requests[1].at - r.requests[0].at).toBeGreaterThanOrEqual(2_900);
    expect(r.requests[1].headers['webhook-id']).toBe(r.requests[0].headers['webhook-id']);
  });
});

describe('worker shutdown', () => {
  it('stopping the worker mid-delivery releases the job; a new worker delivers it', async () => {
    const { r, hook, row } = await scenario([{ status: 200, delayMs: 5_000 }, 200]);
    const created = await row('in flight');
    await until(() => r.requests.length >= 1, 5_000, 'the slow attempt to start');
    // Past the 1 s grace the in-flight job is failed back to the queue and its request aborted.
    await env.workers.stop(1_000);
    env.workers = await env.startWorkers();
    await until(() => r.requests.length >= 2, 15_000, 'the delivery by the new worker');
    expect(r.requests[1].headers['webhook-id']).toBe(r.requests[0].headers['webhook-id']);
    expect(r.requests[1].json.data.id).toBe(created.id);
    const records = await until(async () => {
      const list = await deliveries(env.w, hook.id);
      return list.length >= 1 && list;
    }, 5_000, 'the record');
    // The aborted request is not an attempt of the event: one record, delivered.
    expect(records.map((d) => [d.attempt, d.statusCode])).toEqual([[1, 200]]);
  });

  it('a graceful stop lets an in-flight delivery finish', async () => {
    const { r, hook, row } = await scenario([{ status: 200, delayMs: 700 }]);
    await row('finish me');
    await until(() => r.requests.length >= 1, 5_000, 'the attempt to start');
    await env.workers.stop(10_000);
    expect((await deliveries(env.w, hook.id)).map((d) => [d.attempt, d.statusCode])).toEqual([[1, 200]]);
    env.workers = await env.startWorkers();
    // Nothing for the new worker to deliver again: no job of this webhook is left.
    await settled(hook.id);
    expect(r.requests).toHaveLength(1);
  });
});
