import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/trpc/router.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectError, expectStatus, getRow, putRow, type Table, type World } from './fixture.js';

/**
 * docs/contents.md: a localized column merges per locale on every update: `{"title": {"fr": …}}`
 * changes French only, `{"fr": null}` removes it, a plain value sets the default locale, and
 * `{"title": null}` clears the column. PUT (REST and tRPC), drafts and upsert imports alike;
 * a revision restore still replaces the data as it was.
 */
let t: TestApi;
let w: World;
let posts: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true, required: true } },
    { name: 'summary', type: 'text', settings: { localized: true } },
    { name: 'slug', type: 'slug', settings: { source: 'title' } },
  ]);
});
afterAll(async () => {
  await t?.close();
});

const both = () => createRow(w, posts.id, { title: { en: 'Hello', fr: 'Bonjour' }, summary: { en: 'Sum', fr: 'Rés' } }, { status: 'PUBLISHED' });
const dataOf = async (id: string) => expectStatus(await getRow(w, posts.id, id), 200).data as Record<string, unknown>;
const importInto = (body: string, type: string) =>
  t.call('POST', `${contentsPath(w, posts.id)}/import?mode=upsert`, { token: w.writeKey, raw: body, headers: { 'content-type': type } });

describe('PUT', () => {
  it('changes the locales given and keeps the others', async () => {
    const row = await both();
    const updated = expectStatus(await putRow(w, posts.id, row.id, { data: { title: { en: 'Hi' } } }), 200);
    expect(updated.data.title).toEqual({ en: 'Hi', fr: 'Bonjour' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { summary: { fr: 'Résumé' } } }), 200);
    expect(await dataOf(row.id)).toMatchObject({ title: { en: 'Hi', fr: 'Bonjour' }, summary: { en: 'Sum', fr: 'Résumé' } });
  });

  it('a plain value sets the default locale only; a null locale removes it; a null column clears it', async () => {
    const row = await both();
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Plain' } }), 200);
    expect((await dataOf(row.id)).title).toEqual({ en: 'Plain', fr: 'Bonjour' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: { fr: null }, summary: { en: null } } }), 200);
    expect(await dataOf(row.id)).toMatchObject({ title: { en: 'Plain' }, summary: { fr: 'Rés' } });
    expectStatus(await putRow(w, posts.id, row.id, { data: { summary: null } }), 200);
    expect((await dataOf(row.id)).summary).toBeUndefined();
    expectStatus(await putRow(w, posts.id, row.id, { data: { summary: { fr: null } } }), 200);
    expect((await dataOf(row.id)).summary).toBeUndefined();
  });

  it('removing the default locale of a required column is 422 and changes nothing', async () => {
    const row = await both();
    const res = expectError(await putRow(w, posts.id, row.id, { data: { title: { en: null } } }), 422, 'VALIDATION_ERROR');
    expect(res.details).toEqual([{ field: 'data.title.en', message: expect.any(String) }]);
    expectError(await putRow(w, posts.id, row.id, { data: { title: null } }), 422, 'VALIDATION_ERROR');
    expect((await dataOf(row.id)).title).toEqual({ en: 'Hello', fr: 'Bonjour' });
  });

  it('through tRPC too', async () => {
    const row = await both();
    const trpc = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${t.url}/trpc`, headers: () => ({ authorization: `Bearer ${w.writeKey}` }) })] });
    const updated = await trpc.contents.update.mutate({ projectId: w.projectId, tableId: posts.id, contentsId: row.id, data: { title: { fr: 'Salut' } } });
    expect((updated.data as Record<string, unknown>).title).toEqual({ en: 'Hello', fr: 'Salut' });
  });

  it('a revision restore still replaces the data as it was', async () => {
    const row = await createRow(w, posts.id, { title: { en: 'One' } });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: { fr: 'Un' } } }), 200);
    expect((await dataOf(row.id)).title).toEqual({ en: 'One', fr: 'Un' });
    const restored = await t.call('POST', `${contentsPath(w, posts.id, row.id)}/revisions/1/restore`, { token: w.writeKey });
    expect(restored.status, restored.text).toBe(200);
    expect((await dataOf(row.id)).title).toEqual({ en: 'One' });
  });
});

describe('drafts', () => {
  it('a draft that sets one locale keeps the others, when saved and when published', async () => {
    const row = await both();
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: { en: 'Draft en' } }, draft: true }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { data: { summary: { fr: null } }, draft: true }), 200);
    const view = expectStatus(await getRow(w, posts.id, row.id, w.writeKey, '?version=draft'), 200);
    expect(view.data).toMatchObject({ title: { en: 'Draft en', fr: 'Bonjour' }, summary: { en: 'Sum' } });
    expect(view.data.summary).toEqual({ en: 'Sum' });
    // The live row changes French meanwhile: the draft, which did not touch it, keeps the new value.
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: { fr: 'Salut' } } }), 200);
    expectStatus(await t.call('POST', `${contentsPath(w, posts.id, row.id)}/draft/publish`, { token: w.writeKey }), 200);
    expect(await dataOf(row.id)).toMatchObject({ title: { en: 'Draft en', fr: 'Salut' }, summary: { en: 'Sum' } });
    expect((await dataOf(row.id)).summary).toEqual({ en: 'Sum' });
  });

  it('a draft that clears a column and then sets one locale publishes that locale alone', async () => {
    const row = await both();
    expectStatus(await putRow(w, posts.id, row.id, { data: { summary: null }, draft: true }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { data: { summary: { fr: 'Neuf' } }, draft: true }), 200);
    expectStatus(await t.call('POST', `${contentsPath(w, posts.id, row.id)}/draft/publish`, { token: w.writeKey }), 200);
    expect((await dataOf(row.id)).summary).toEqual({ fr: 'Neuf' });
  });
});

describe('upsert imports', () => {
  it('NDJSON: a line that gives one locale keeps the others', async () => {
    const row = await both();
    const body = `${JSON.stringify({ id: row.id, data: { title: { fr: 'Coucou' }, summary: 'New sum' } })}\n`;
    expect(expectStatus(await importInto(body, 'application/x-ndjson'), 200)).toEqual({ imported: 1 });
    expect(await dataOf(row.id)).toMatchObject({ title: { en: 'Hello', fr: 'Coucou' }, summary: { en: 'New sum', fr: 'Rés' } });
  });

  it('CSV: a title.fr column changes French only', async () => {
    const row = await both();
    expect(expectStatus(await importInto(`id,title.fr\n${row.id},Allô\n`, 'text/csv'), 200)).toEqual({ imported: 1 });
    expect(await dataOf(row.id)).toMatchObject({ title: { en: 'Hello', fr: 'Allô' }, summary: { en: 'Sum', fr: 'Rés' } });
  });
});
