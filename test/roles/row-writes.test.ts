import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectError, expectStatus, getRow, putRow, roleKey, type Table, type World } from '../contents/fixture.js';

/**
 * Every write of one row names it among the rows its caller reads (docs/roles.md#writes): draft
 * publish and discard and revision restores as updates and deletes do; a restore reads a
 * revision, so it needs `drafts`; and a write's answer shows `hasDraft` only to callers that read drafts.
 */

let t: TestApi;
let w: World;
let articles: Table;

/** An API key holding a new role with these rules: its secret. */
const keyWith = async (rules: unknown[]) => (await roleKey(w, rules)).key;

/** A PUBLISHED row with a pending draft, as a read_write key leaves it. */
async function withDraft(data: Record<string, unknown>): Promise<string> {
  const id = (await createRow(w, articles.id, data)).id;
  expectStatus(await putRow(w, articles.id, id, { data: { title: 'proposed' }, draft: true }), 200);
  return id;
}

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  articles = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'owner', type: 'text' },
  ]);
});
afterAll(async () => t?.close());

describe('rows outside the read rules are 404 to every write', () => {
  it('draft publish and discard of a row the role does not read: 404, the draft stays', async () => {
    // Reads its own rows; updates and publishes any (the read rules decide which rows it names).
    const key = await keyWith([
      { table: articles.key, actions: ['read'], where: [{ i: 'owner', w: 'eq', v: '$me' }], drafts: true },
      { table: articles.key, actions: ['update', 'publish'] },
    ]);
    const row = await withDraft({ title: 'live', owner: 'someone' });
    expectError(await t.call('POST', `${contentsPath(w, articles.id, row)}/draft/publish`, { token: key }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `${contentsPath(w, articles.id, row)}/draft`, { token: key }), 404, 'NOT_FOUND');
    const draft = expectStatus(await getRow(w, articles.id, row, w.writeKey, '?version=draft'), 200);
    expect(draft).toMatchObject({ data: { title: 'proposed' }, hasDraft: true });
    expect(expectStatus(await getRow(w, articles.id, row), 200).data.title).toBe('live');
  });

  it('restore onto a row of a status the role does not read: 404, nothing written', async () => {
    // A key reads PUBLISHED rows unless its rules name statuses.
    const key = await keyWith([{ table: articles.key, actions: ['read', 'update'], drafts: true }]);
    const hidden = (await createRow(w, articles.id, { title: 'draft v1' }, { status: 'DRAFT' })).id;
    expectStatus(await putRow(w, articles.id, hidden, { data: { title: 'draft v2' } }), 200);
    for (const body of [{}, { draft: true }]) {
      const res = await t.call('POST', `${contentsPath(w, articles.id, hidden)}/revisions/1/restore`, { token: key, body });
      expectError(res, 404, 'NOT_FOUND');
    }
    expect(expectStatus(await getRow(w, articles.id, hidden), 200).data.title).toBe('draft v2');
  });

  it('restore without drafts: 403, as reading revisions is', async () => {
    const key = await keyWith([{ table: articles.key, actions: ['read', 'update'] }]);
    const row = (await createRow(w, articles.id, { title: 'v1' })).id;
    expectStatus(await putRow(w, articles.id, row, { data: { title: 'v2' } }), 200);
    expectError(await t.call('GET', `${contentsPath(w, articles.id, row)}/revisions/1`, { token: key }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', `${contentsPath(w, articles.id, row)}/revisions/1/restore`, { token: key }), 403, 'FORBIDDEN');
    expect(expectStatus(await getRow(w, articles.id, row), 200).data.title).toBe('v2');
  });

  it('the rows the role reads are written as before: draft publish and restore with drafts', async () => {
    const key = await keyWith([{ table: articles.key, actions: ['read', 'update', 'publish'], drafts: true }]);
    const row = await withDraft({ title: 'live' });
    const published = expectStatus(await t.call('POST', `${contentsPath(w, articles.id, row)}/draft/publish`, { token: key }), 200);
    expect(published).toMatchObject({ data: { title: 'proposed' }, hasDraft: false });
    const restored = expectStatus(await t.call('POST', `${contentsPath(w, articles.id, row)}/revisions/1/restore`, { token: key }), 200);
    expect(restored.data.title).toBe('live');
  });
});

describe('hasDraft in the answers of writes', () => {
  it('is left out for a role without drafts, given to one with drafts', async () => {
    const without = await keyWith([{ table: articles.key, actions: ['read', 'create', 'update', 'publish'] }]);
    const withDrafts = await keyWith([{ table: articles.key, actions: ['read', 'create', 'update', 'publish'], drafts: true }]);
    const created = expectStatus(await t.call('POST', contentsPath(w, articles.id), { token: without, body: { data: { title: 'a' } } }), 201);
    expect(created).not.toHaveProperty('hasDraft');
    expect(expectStatus(await putRow(w, articles.id, created.id, { data: { title: 'b' } }, without), 200)).not.toHaveProperty('hasDraft');
    expect(expectStatus(await putRow(w, articles.id, created.id, { data: { title: 'c' } }, withDrafts), 200).hasDraft).toBe(false);
    expect(expectStatus(await putRow(w, articles.id, created.id, { data: { title: 'd' } }), 200).hasDraft).toBe(false);
  });
});
