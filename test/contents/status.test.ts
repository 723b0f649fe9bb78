import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  buildWorld, contentsPath, createRow, createTable, expectBadRequest, expectError, expectNoContent, expectStatus, expectValidation,
  getRow, ISO_UTC, list, postRow, putRow, type Table, type World,
} from './fixture.js';
import { clockPast } from '../helpers/until.js';

/** Statuses, transitions, publishAt, visibility and list totals (docs/contents.md#statuses). */

let t: TestApi;
let w: World;
let table: Table;

const future = (ms = 3_600_000) => new Date(Date.now() + ms).toISOString();
const past = () => new Date(Date.now() - 60_000).toISOString();

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(w, [
    { name: 'title', type: 'text', settings: { required: true } },
    { name: 'slug', type: 'slug', settings: { source: 'title' } },
  ]);
});
afterAll(async () => t?.close());

/** A row in `status` (reached through allowed transitions only). */
async function rowIn(status: string, title = `row ${status} ${Math.random()}`) {
  const extra = status === 'SCHEDULED' ? { status, publishAt: future() } : { status };
  const row = await createRow(w, table.id, { title }, extra);
  expect(row.status).toBe(status);
  return row;
}
const move = (id: string, status: string, extra: Record<string, unknown> = {}) => putRow(w, table.id, id, { status, ...extra });

describe('status transitions', () => {
  const allowed: [string, string][] = [
    ['DRAFT', 'PUBLISHED'], ['DRAFT', 'SCHEDULED'], ['DRAFT', 'ARCHIVED'],
    ['SCHEDULED', 'DRAFT'], ['SCHEDULED', 'PUBLISHED'],
    ['PUBLISHED', 'DRAFT'], ['PUBLISHED', 'ARCHIVED'],
    ['ARCHIVED', 'DRAFT'],
  ];
  const refused: [string, string][] = [
    ['ARCHIVED', 'PUBLISHED'], ['ARCHIVED', 'SCHEDULED'], ['PUBLISHED', 'SCHEDULED'], ['SCHEDULED', 'ARCHIVED'],
  ];

  for (const [from, to] of allowed) {
    it(`${from} → ${to} is allowed`, async () => {
      const row = await rowIn(from);
      const res = await move(row.id, to, to === 'SCHEDULED' ? { publishAt: future() } : {});
      const up = expectStatus(res, 200);
      expect(up.status).toBe(to);
      expect(expectStatus(await getRow(w, table.id, row.id), 200).status).toBe(to);
      if (to === 'PUBLISHED') {
        expect(up.publishedAt).toMatch(ISO_UTC);
        expect(up.publishAt).toBeNull();
      }
      if (to === 'SCHEDULED') expect(up.publishAt).toMatch(ISO_UTC);
    });
  }

  for (const [from, to] of refused) {
    it(`${from} → ${to} is 409 INVALID_TRANSITION and changes nothing`, async () => {
      const row = await rowIn(from);
      const error = expectError(await move(row.id, to, to === 'SCHEDULED' ? { publishAt: future() } : {}), 409, 'INVALID_TRANSITION');
      expect(error.message).toContain(from);
      expect(error.message).toContain(to);
      expect(expectStatus(await getRow(w, table.id, row.id), 200).status).toBe(from);
    });
  }

  it('staying in the same status is fine; an unknown status is 400 naming status', async () => {
    for (const status of ['DRAFT', 'PUBLISHED', 'ARCHIVED', 'SCHEDULED']) {
      const row = await rowIn(status);
      expect(expectStatus(await move(row.id, status), 200).status).toBe(status);
      expectBadRequest(await move(row.id, 'LIVE'), 'status');
      expectBadRequest(await move(row.id, 'published'), 'status');
    }
  });

  it('SCHEDULED needs a future publishAt (422 publishAt), on create and on update', async () => {
    expectValidation(await postRow(w, table.id, { data: { title: 'x' }, status: 'SCHEDULED' }), ['publishAt']);
    expectValidation(await postRow(w, table.id, { data: { title: 'x' }, status: 'SCHEDULED', publishAt: past() }), ['publishAt']);
    expectBadRequest(await postRow(w, table.id, { data: { title: 'x' }, status: 'SCHEDULED', publishAt: 'tomorrow' }), 'publishAt');
    const draft = await rowIn('DRAFT');
    expectValidation(await move(draft.id, 'SCHEDULED'), ['publishAt']);
    expectValidation(await move(draft.id, 'SCHEDULED', { publishAt: past() }), ['publishAt']);
    const at = future(7_200_000);
    const scheduled = expectStatus(await move(draft.id, 'SCHEDULED', { publishAt: at }), 200);
    expect([scheduled.status, scheduled.publishAt, scheduled.publishedAt]).toEqual(['SCHEDULED', at, null]);
    // A later PUT keeps publishAt; a new one may replace it; back to DRAFT clears it.
    expect(expectStatus(await putRow(w, table.id, draft.id, { data: { title: 'kept' } }), 200).publishAt).toBe(at);
    const later = future(9_000_000);
    expect(expectStatus(await putRow(w, table.id, draft.id, { publishAt: later }), 200).publishAt).toBe(later);
    expectValidation(await putRow(w, table.id, draft.id, { publishAt: past() }), ['publishAt']);
    expect(expectStatus(await move(draft.id, 'DRAFT'), 200).publishAt).toBeNull();
  });

  it('422 wins over 409: an invalid body on a refused transition is 422', async () => {
    const archived = await rowIn('ARCHIVED');
    expectValidation(await move(archived.id, 'SCHEDULED'), ['publishAt']);
    expectValidation(await putRow(w, table.id, archived.id, { status: 'PUBLISHED', data: { title: null } }), ['data.title']);
    expectError(await move(archived.id, 'PUBLISHED'), 409, 'INVALID_TRANSITION');
  });

  it('publishedAt is set on each publish and kept otherwise', async () => {
    const draft = await rowIn('DRAFT');
    expect(draft.publishedAt).toBeNull();
    const first = expectStatus(await move(draft.id, 'PUBLISHED'), 200);
    expect(first.publishedAt).toMatch(ISO_UTC);
    await clockPast(first.publishedAt);
    expect(expectStatus(await putRow(w, table.id, draft.id, { data: { title: 'edited' } }), 200).publishedAt).toBe(first.publishedAt);
    const unpublished = expectStatus(await move(draft.id, 'DRAFT'), 200);
    await clockPast(unpublished.updatedAt);
    const second = expectStatus(await move(draft.id, 'PUBLISHED'), 200);
    expect(second.publishedAt > first.publishedAt).toBe(true);
    // Created directly as PUBLISHED: publishedAt set at once.
    expect((await rowIn('PUBLISHED')).publishedAt).toMatch(ISO_UTC);
  });
});

describe('visibility of non-public rows', () => {
  it('DRAFT, SCHEDULED and ARCHIVED rows are 404 to read keys by id and slug; visible to read_write keys and accounts', async () => {
    for (const status of ['DRAFT', 'SCHEDULED', 'ARCHIVED']) {
      const row = await rowIn(status, `hidden ${status}`);
      for (const ref of [row.id, row.slug]) {
        expectError(await getRow(w, table.id, ref, w.readKey), 404, 'NOT_FOUND');
        expectError(await getRow(w, table.key, ref, w.readKey), 404, 'NOT_FOUND');
        expect(expectStatus(await getRow(w, table.id, ref, w.writeKey), 200).id).toBe(row.id);
        expect(expectStatus(await t.call('GET', contentsPath(w, table.id, ref)), 200).status).toBe(status);
      }
    }
  });

  it('lists: read keys see PUBLISHED rows only, whatever the filter; totals follow creates, deletes and status changes', async () => {
    const own = await createTable(w, [{ name: 'title', type: 'text' }]);
    // Unfiltered totals, checked against a filtered total that matches every row (counted another way).
    const everything = [{ i: 'title', w: 'null', v: false }];
    const totals = async () => {
      const both = [(await list(w, own.id, w.readKey)).pagination.total, (await list(w, own.id, w.writeKey)).pagination.total];
      const filtered = [
        (await list(w, own.id, w.readKey, { filter: everything })).pagination.total,
        (await list(w, own.id, w.writeKey, { filter: everything })).pagination.total,
      ];
      expect(filtered, 'filtered totals').toEqual(both);
      return both;
    };
    expect(await totals()).toEqual([0, 0]);
    const p1 = await createRow(w, own.id, { title: 'p1' });
    const p2 = await createRow(w, own.id, { title: 'p2' });
    const d1 = await createRow(w, own.id, { title: 'd1' }, { status: 'DRAFT' });
    const s1 = await createRow(w, own.id, { title: 's1' }, { status: 'SCHEDULED', publishAt: future() });
    const a1 = await createRow(w, own.id, { title: 'a1' }, { status: 'ARCHIVED' });
    expect(await totals()).toEqual([2, 5]);
    const ids = async (token: string, query: Record<string, unknown> = {}) => (await list(w, own.id, token, { size: 100, ...query })).list.map((r) => r.id).sort();
    expect(await ids(w.readKey)).toEqual([p1.id, p2.id].sort());
    expect(await ids(w.writeKey)).toEqual([p1.id, p2.id, d1.id, s1.id, a1.id].sort());
    expect(await ids(t.adminToken)).toHaveLength(5);
    for (const status of ['DRAFT', 'SCHEDULED', 'ARCHIVED']) {
      const filter = [{ i: 'status', w: 'eq', v: status }];
      const hidden = await list(w, own.id, w.readKey, { filter });
      expect([hidden.list, hidden.pagination.total]).toEqual([[], 0]);
      expect((await list(w, own.id, w.writeKey, { filter })).pagination.total).toBe(1);
    }
    const any = await list(w, own.id, w.readKey, { filter: [{ i: 'status', w: 'neq', v: 'PUBLISHED' }, { i: 'title', w: 'eq', v: 'd1' }], op: 'or' });
    expect(any.list.map((r) => r.id)).toEqual([]);
    expect((await list(w, own.id, w.readKey, { filter: [{ i: 'title', w: 'eq', v: 'd1' }] })).pagination.total).toBe(0);
    // Status changes move the totals.
    expectStatus(await putRow(w, own.id, d1.id, { status: 'PUBLISHED' }), 200);
    expect(await totals()).toEqual([3, 5]);
    expectStatus(await putRow(w, own.id, p1.id, { status: 'ARCHIVED' }), 200);
    expect(await totals()).toEqual([2, 5]);
    expectStatus(await putRow(w, own.id, s1.id, { status: 'DRAFT' }), 200);
    expect(await totals()).toEqual([2, 5]);
    // Deletes too, of public and non-public rows.
    expectNoContent(await t.call('DELETE', contentsPath(w, own.id, p2.id), { token: w.writeKey }));
    expect(await totals()).toEqual([1, 4]);
    expectNoContent(await t.call('DELETE', contentsPath(w, own.id, a1.id), { token: w.writeKey }));
    expect(await totals()).toEqual([1, 3]);
    // A refused or invalid write changes nothing.
    expectError(await putRow(w, own.id, p1.id, { status: 'PUBLISHED' }), 409, 'INVALID_TRANSITION');
    expectValidation(await postRow(w, own.id, { data: { nope: 1 } }), ['data.nope']);
    expect(await totals()).toEqual([1, 3]);
    // Data-only changes keep the totals; a filtered total follows a value change.
    expectStatus(await putRow(w, own.id, p1.id, { data: { title: 'p1 again' } }), 200);
    expect(await totals()).toEqual([1, 3]);
    const named = [{ i: 'title', w: 'startsWith', v: 'p1' }];
    expect((await list(w, own.id, w.writeKey, { filter: named })).pagination.total).toBe(1);
    expectStatus(await putRow(w, own.id, d1.id, { data: { title: 'p1 too' } }), 200);
    expect((await list(w, own.id, w.writeKey, { filter: named })).pagination.total).toBe(2);
    expect((await list(w, own.id, w.readKey, { filter: named })).pagination.total).toBe(1);
  });

  it('the list envelope: page, size, total, pages, hasNext', async () => {
    const own = await createTable(w, [{ name: 'n', type: 'integer' }]);
    for (let n = 0; n < 5; n++) await createRow(w, own.id, { n });
    await createRow(w, own.id, { n: 99 }, { status: 'DRAFT' });
    const first = await list(w, own.id, w.readKey, { size: 2 });
    expect(first.pagination).toMatchObject({ page: 1, size: 2, total: 5, pages: 3, hasNext: true });
    const last = await list(w, own.id, w.readKey, { size: 2, page: 3 });
    expect(last.list).toHaveLength(1);
    expect(last.pagination).toMatchObject({ page: 3, size: 2, total: 5, pages: 3, hasNext: false });
    expect((await list(w, own.id, w.writeKey, { size: 2, page: 3 })).pagination).toMatchObject({ total: 6, pages: 3, hasNext: false });
    const beyond = await list(w, own.id, w.readKey, { size: 2, page: 9 });
    expect([beyond.list, beyond.pagination.hasNext]).toEqual([[], false]);
    // Default order: newest first.
    expect((await list(w, own.id, w.readKey)).list.map((r) => r.data!.n)).toEqual([4, 3, 2, 1, 0]);
    for (const bad of ['size=0', 'size=1001', 'page=0', 'page=1.5', 'size=x']) {
      expectError(await t.call('GET', `${contentsPath(w, own.id)}?${bad}`, { token: w.readKey }), 400, 'INVALID_QUERY');
    }
  });
});
