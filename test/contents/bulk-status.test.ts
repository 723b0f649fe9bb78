import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectBadRequest, expectError, expectStatus, getRow, GHOST, list, putRow, type Table, type World } from './fixture.js';

/** Many rows given one status in one request (docs/contents.md#bulk-status). */

let t: TestApi;
let w: World;
let table: Table;
let other: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(w, [{ name: 'title', type: 'text' }], { defaultStatus: 'DRAFT' });
  other = await createTable(w, [{ name: 'title', type: 'text' }]);
});
afterAll(async () => t?.close());

const setStatus = (body: unknown, token?: string) => t.call('POST', `${contentsPath(w, table.id)}/status`, { body, ...(token ? { token } : {}) });

describe('contents.setStatus', () => {
  it('publishes the rows that may be published and answers each refusal as its single update would', async () => {
    const drafts = await Promise.all([1, 2, 3].map((i) => createRow(w, table.id, { title: `draft ${i}` })));
    const archived = await createRow(w, table.id, { title: 'archived' }, { status: 'ARCHIVED' });
    const elsewhere = await createRow(w, other.id, { title: 'elsewhere' }, { status: 'DRAFT' });
    const ids = [drafts[0].id, archived.id, drafts[1].id, GHOST, elsewhere.id, drafts[2].id];
    const before = (await list(w, table.id, w.writeKey, { filter: [{ i: 'status', w: 'eq', v: 'PUBLISHED' }], withCount: 'true' })).pagination.total;

    const { results } = expectStatus(await setStatus({ ids, status: 'PUBLISHED' }), 200);
    expect(results.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(results.map((r: { ok: boolean }) => r.ok)).toEqual([true, false, true, false, false, true]);
    // The refusals are those of `PUT .../contents/{id}` with the same status.
    const single = expectError(await putRow(w, table.id, archived.id, { status: 'PUBLISHED' }), 409, 'INVALID_TRANSITION');
    expect(results[1]).toEqual({ id: archived.id, ok: false, code: 'INVALID_TRANSITION', message: single.message });
    expect(results[3]).toMatchObject({ code: 'NOT_FOUND' });
    expect(results[4]).toMatchObject({ code: 'NOT_FOUND' });

    for (const draft of drafts) {
      const row = expectStatus(await getRow(w, table.id, draft.id), 200);
      expect(row.status).toBe('PUBLISHED');
      expect(row.publishedAt).not.toBeNull();
    }
    expect(expectStatus(await getRow(w, table.id, archived.id), 200).status).toBe('ARCHIVED');
    expect(expectStatus(await getRow(w, other.id, elsewhere.id), 200).status).toBe('DRAFT');
    // The maintained totals moved with the rows, and read keys see them.
    const after = (await list(w, table.id, w.writeKey, { filter: [{ i: 'status', w: 'eq', v: 'PUBLISHED' }], withCount: 'true' })).pagination.total;
    expect(after).toBe(before + 3);
    const read = await list(w, table.id, w.readKey, { withCount: 'true' });
    expect(read.list.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining(drafts.map((d) => d.id)));

    // Each published row has its revision, as its single update would write.
    const revisions = expectStatus(await t.call('GET', `${contentsPath(w, table.id, drafts[0].id)}/revisions`), 200);
    expect(revisions.list[0].action).toBe('published');
  });

  it('archives and unpublishes; refuses a read key, repeated ids and more than 1,000 rows', async () => {
    const row = await createRow(w, table.id, { title: 'to archive' }, { status: 'PUBLISHED' });
    expect(expectStatus(await setStatus({ ids: [row.id], status: 'DRAFT' }), 200).results).toEqual([{ id: row.id, ok: true }]);
    expect(expectStatus(await getRow(w, table.id, row.id), 200).status).toBe('DRAFT');
    expect(expectStatus(await setStatus({ ids: [row.id], status: 'ARCHIVED' }), 200).results[0].ok).toBe(true);
    expect(expectStatus(await getRow(w, table.id, row.id), 200).status).toBe('ARCHIVED');

    expectError(await setStatus({ ids: [row.id], status: 'DRAFT' }, w.readKey), 403, 'FORBIDDEN');
    expectBadRequest(await setStatus({ ids: [row.id, row.id], status: 'DRAFT' }), 'ids');
    expectBadRequest(await setStatus({ ids: Array.from({ length: 1001 }, () => GHOST), status: 'DRAFT' }), 'ids');
    expectBadRequest(await setStatus({ ids: [row.id], status: 'SCHEDULED' }), 'status');
    expect(expectStatus(await getRow(w, table.id, row.id), 200).status).toBe('ARCHIVED');
  });
});
