import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectCreated, expectStatus } from '../helpers/expect.js';
import { apply, changesOf, column, copy, table, type Snapshot } from './fixture.js';

/**
 * Writers insert and update rows of a table while a schema apply changes that table (a type
 * conversion that rewrites every stored value, a new unique column, a rename of another
 * column): every write the API acknowledged is there afterwards (docs/environments.md#applying).
 */

let t: TestApi;
let projectId: string;

beforeAll(async () => {
  t = await startTestApi();
  const ws = expectCreated(await t.call('POST', '/v1/workspaces', { body: { name: 'Concurrent' } })).id;
  projectId = expectCreated(await t.call('POST', `/v1/workspaces/${ws}/projects`, { body: { name: 'P' } })).id;
});
afterAll(async () => t?.close());

const ROWS = 2000;
const WRITERS = 4;

describe('apply under concurrent writes', () => {
  it('loses no acknowledged insert or update', { timeout: 300_000 }, async () => {
    const base: Snapshot = {
      format: 1,
      locales: ['en'],
      defaultLocale: 'en',
      roles: [],
      tables: [table('items', [column('title', 'text'), column('n', 'integer'), column('note', 'text')])],
    };
    changesOf(await apply(t, projectId, base));
    const lines = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ data: { title: `seed ${i}`, n: i, note: 'x' } })).join('\n');
    const imported = await t.call('POST', `/v1/${projectId}/tables/items/contents/import`, { raw: lines, headers: { 'content-type': 'application/x-ndjson' } });
    expect(expectStatus(imported, 200)).toEqual({ imported: ROWS });
    const seeded = expectStatus(await t.call('GET', `/v1/${projectId}/tables/items/contents?size=1000`), 200).list as { id: string }[];

    const inserted = new Map<string, string>();
    const updated = new Map<string, string>();
    let applying = true;
    let writesDuringApply = 0;
    const writer = async (w: number) => {
      // Each writer updates its own rows, so the last acknowledged title of a row is well defined.
      const mine = seeded.filter((_, i) => i % WRITERS === w);
      for (let i = 0; applying || i < 5; i++) {
        const title = `w${w} ${i}`;
        const created = await t.call('POST', `/v1/${projectId}/tables/items/contents`, { body: { data: { title } } });
        if (created.status === 201) inserted.set(created.json.id, title);
        const row = mine[i % mine.length];
        const put = await t.call('PUT', `/v1/${projectId}/tables/items/contents/${row.id}`, { body: { data: { title } } });
        if (put.status === 200) updated.set(row.id, title);
        else expect([409, 422], put.text).toContain(put.status);
        if (applying) writesDuringApply++;
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const next = copy(base);
    next.tables[0].columns = [column('title', 'text'), column('n', 'text'), { ...column('remark', 'text'), renamedFrom: 'note' }, column('code', 'text', { unique: true })];
    const changes = changesOf(await apply(t, projectId, next)).map((c) => `${c.op} ${c.column}`);
    applying = false;
    await Promise.all(writers);
    expect(changes).toEqual(['updateColumn n', 'updateColumn remark', 'addColumn code']);
    expect(writesDuringApply).toBeGreaterThan(0);

    const all = new Map<string, Record<string, unknown>>();
    for (let page = 1; ; page++) {
      const body = expectStatus(await t.call('GET', `/v1/${projectId}/tables/items/contents?size=1000&page=${page}`), 200);
      for (const row of body.list as { id: string; data: Record<string, unknown> }[]) all.set(row.id, row.data);
      if (!body.pagination.hasNext) break;
    }
    expect(all.size).toBe(ROWS + inserted.size);
    for (const [id, title] of inserted) expect(all.get(id)?.title, id).toBe(title);
    for (const [id, title] of updated) expect(all.get(id)?.title, id).toBe(title);
    // The seeded values no writer replaced went through the conversion and the rename.
    const untouched = seeded.filter((r) => !updated.has(r.id)).map((r) => all.get(r.id)!);
    expect(untouched.length).toBeGreaterThan(0);
    for (const data of untouched) expect(data).toEqual({ title: expect.stringMatching(/^seed /), n: expect.any(String), remark: 'x' });
  });
});
