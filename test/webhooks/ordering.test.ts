import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentsPath, createRow, createTable, expectStatus, putRow } from '../contents/fixture.js';
import { createWebhook, deliveries, startReceiver, startWebhookEnv, type ReceivedRequest, type Receiver, type WebhookEnv } from './fixture.js';
import { until } from '../helpers/until.js';

/**
 * Delivery order (docs/webhooks.md "Order of deliveries"): the events of one row reach a webhook in commit
 * order, each one only after the one before it was delivered or gave up; every body carries a
 * `sequence` that increases in that order.
 */
let env: WebhookEnv;
const receivers: Receiver[] = [];
beforeAll(async () => {
  env = await startWebhookEnv();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await env?.close();
});

async function receiver() {
  const r = await startReceiver([200]);
  receivers.push(r);
  return r;
}

/** The requests about one row, in the order they arrived. */
const ofRow = (r: Receiver, rowId: string) => r.requests.filter((q) => q.json?.data?.id === rowId);
const typesOf = (requests: ReceivedRequest[]) => requests.map((q) => q.json.type as string);

/** Per row: arrival order is sequence order, and no sequence repeats (within one row's events). */
function expectSequenced(requests: ReceivedRequest[]) {
  const sequences = requests.map((q) => q.json.sequence as number);
  for (const s of sequences) expect(Number.isSafeInteger(s) && s > 0, `sequence ${s}`).toBe(true);
  expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  expect(new Set(sequences).size).toBe(sequences.length);
}

describe('order of deliveries', () => {
  it('30 rows created PUBLISHED at once: each row gives contents.created, then contents.published', async () => {
    const { w } = env;
    const r = await receiver();
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    await createWebhook(w, { url: r.url, events: ['*'], tableIds: [table.id] });
    const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => createRow(w, table.id, { title: `row ${i}` }, { status: 'PUBLISHED' })));
    await until(() => r.requests.length >= 60, 20_000, '60 deliveries');
    for (const row of rows) {
      const requests = ofRow(r, row.id);
      expect(typesOf(requests), row.id).toEqual(['contents.created', 'contents.published']);
      expectSequenced(requests);
    }
  });

  it("a row's whole life, for 10 rows written in parallel, arrives in commit order", async () => {
    const { w, t } = env;
    const r = await receiver();
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    await createWebhook(w, { url: r.url, events: ['*'], tableIds: [table.id] });
    const ids = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const row = await createRow(w, table.id, { title: `life ${i}` }, { status: 'DRAFT' });
        expectStatus(await putRow(w, table.id, row.id, { status: 'PUBLISHED' }), 200);
        expectStatus(await putRow(w, table.id, row.id, { data: { title: `life ${i}, edited` } }), 200);
        expectStatus(await putRow(w, table.id, row.id, { status: 'DRAFT' }), 200);
        expect((await t.call('DELETE', contentsPath(w, table.id, row.id), { token: w.writeKey })).status).toBe(204);
        return row.id as string;
      }),
    );
    const life = ['contents.created', 'contents.updated', 'contents.published', 'contents.updated', 'contents.updated', 'contents.unpublished', 'contents.deleted'];
    // Per row, not a total: a delivery repeated by a retry (at least once) must not end the wait early.
    await until(() => ids.every((id) => ofRow(r, id).length >= life.length), 30_000, 'every event of every row');
    for (const id of ids) {
      const requests = ofRow(r, id);
      expect(typesOf(requests), id).toEqual(life);
      expectSequenced(requests);
    }
  });

  it('an event waiting for a retry holds back the later events of its row, not those of other rows', async () => {
    const { w } = env;
    const r = await receiver();
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const hook = await createWebhook(w, { url: r.url, events: ['*'], tableIds: [table.id] });
    let other: { id: string } | undefined;
    // The slow row's contents.created is refused until the other row's two events have arrived
    // (WEBHOOK_RETRY_DELAYS=1,1,1: it is tried again every second, four times at most).
    r.decide = (q) => (q.json?.type === 'contents.created' && q.json.data.data.title === 'slow' && !(other && ofRow(r, other.id).length >= 2) ? 500 : 200);
    const slow = await createRow(w, table.id, { title: 'slow' }, { status: 'DRAFT' });
    await until(() => ofRow(r, slow.id).length >= 1, 10_000, 'the refused attempt');
    expectStatus(await putRow(w, table.id, slow.id, { status: 'PUBLISHED' }), 200);
    other = await createRow(w, table.id, { title: 'other' }, { status: 'PUBLISHED' });

    const requests = await until(() => ofRow(r, slow.id).at(-1)?.json.type === 'contents.published' && ofRow(r, slow.id), 10_000, "the slow row's events");
    const types = typesOf(requests);
    expect(types.slice(-2)).toEqual(['contents.updated', 'contents.published']);
    expect(types.slice(0, -2).every((type) => type === 'contents.created')).toBe(true);
    expectSequenced([requests.at(-3)!, ...requests.slice(-2)]);
    // The other row went while the slow one waited: its contents.created was delivered in the end
    // (by a retry), not given up after its last attempt.
    const createdId = requests[0].json.id;
    const attempts = (await deliveries(w, hook.id)).filter((d) => d.eventId === createdId);
    expect(attempts[0].statusCode).toBe(200);
    expect(attempts.length).toBe(types.length - 2);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
  });

  it('a long queue behind a retried event drains in order (delivered one after the other, then handed to a job)', async () => {
    const { w } = env;
    const r = await receiver();
    const table = await createTable(w, [{ name: 'n', type: 'integer' }]);
    await createWebhook(w, { url: r.url, events: ['*'], tableIds: [table.id] });
    let written = false;
    // contents.created is refused until the 24 updates are written: they queue up behind it.
    r.decide = (q) => (q.json?.type === 'contents.created' && !written ? 500 : 200);
    const row = await createRow(w, table.id, { n: 0 }, { status: 'DRAFT' });
    await until(() => ofRow(r, row.id).length >= 1, 10_000, 'the refused attempt');
    for (let n = 1; n <= 24; n++) expectStatus(await putRow(w, table.id, row.id, { data: { n } }), 200);
    written = true;
    const requests = await until(() => ofRow(r, row.id).filter((q) => q.json.type === 'contents.updated').length >= 24 && ofRow(r, row.id), 20_000, 'every update');
    const updates = requests.filter((q) => q.json.type === 'contents.updated');
    expect(updates.map((q) => q.json.data.data.n)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(requests.slice(0, -24).every((q) => q.json.type === 'contents.created')).toBe(true);
    expectSequenced(requests.slice(-25));
  });

  it('an event that exhausts its retries lets the next events of its row go', async () => {
    const { w } = env;
    const r = await receiver();
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    await createWebhook(w, { url: r.url, events: ['*'], tableIds: [table.id] });
    // WEBHOOK_RETRY_DELAYS=1,1,1: four attempts of contents.created, all refused.
    r.decide = (q) => (q.json?.type === 'contents.created' ? 500 : 200);
    const row = await createRow(w, table.id, { title: 'doomed' }, { status: 'DRAFT' });
    await until(() => ofRow(r, row.id).length >= 1, 10_000, 'the first attempt');
    expectStatus(await putRow(w, table.id, row.id, { status: 'PUBLISHED' }), 200);
    await until(() => ofRow(r, row.id).length >= 6, 15_000, 'the later events');
    expect(typesOf(ofRow(r, row.id))).toEqual([...Array(4).fill('contents.created'), 'contents.updated', 'contents.published']);
  });
});
