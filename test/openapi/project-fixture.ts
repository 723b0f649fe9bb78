import { expect } from 'vitest';
import { addColumn, type ColumnSpec, type World } from '../contents/fixture.js';
import { expectCreated } from '../helpers/expect.js';
import { upload } from '../resources/fixture.js';

/** A project (locales en, fr) with two tables whose columns cover every type and setting (docs/contents.md#tables-and-columns). */

export interface Catalog {
  authorsId: string;
  postsId: string;
  fileId: string;
}

async function table(w: World, key: string, name: string, columns: ColumnSpec[], extra: Record<string, unknown> = {}) {
  const created = expectCreated(await w.t.call('POST', `/v1/${w.projectId}/tables`, { body: { key, name, ...extra } }), `/${w.projectId}/tables`);
  for (const column of columns) await addColumn(w, created.id, column);
  return created.id as string;
}

export async function buildCatalog(w: World): Promise<Catalog> {
  const authorsId = await table(w, 'authors', 'Authors', [{ name: 'name', type: 'text', settings: { required: true } }]);
  const postsId = await table(w, 'blog_posts', 'Blog posts', [], { description: 'News and articles', defaultStatus: 'DRAFT' });
  const columns: ColumnSpec[] = [
    { name: 'title', label: 'Title', type: 'text', settings: { required: true, localized: true, maxText: 120 } },
    { name: 'slug', type: 'slug', settings: { source: 'title' } },
    { name: 'body', type: 'longtext', settings: { localized: true, minText: 1 } },
    { name: 'sku', type: 'text', settings: { pattern: '[A-Z]{3}-\\d{4}', unique: true } },
    { name: 'price', type: 'number', settings: { min: 0, max: 1000 } },
    { name: 'stock', type: 'integer', settings: { required: true, min: 0, defaultValue: 0 } },
    { name: 'featured', type: 'boolean' },
    { name: 'day', type: 'date' },
    { name: 'at', type: 'datetime' },
    { name: 'contact', type: 'email' },
    { name: 'site', type: 'url', settings: { localized: true } },
    { name: 'color', type: 'select', settings: { options: ['red', 'green'] } },
    { name: 'topics', type: 'select', settings: { options: ['news', 'tech'], multiple: true } },
    { name: 'meta', type: 'json' },
    { name: 'author', type: 'reference', settings: { table: authorsId } },
    { name: 'related', type: 'reference', settings: { table: postsId, multiple: true } },
    { name: 'cover', type: 'file' },
    { name: 'gallery', type: 'file', settings: { multiple: true } },
  ];
  for (const column of columns) await addColumn(w, postsId, column);
  const file = await upload(w, { bytes: 'hello', filename: 'hello.txt', type: 'text/plain' });
  expect(file.status, file.text).toBe(201);
  return { authorsId, postsId, fileId: file.json.id };
}

/** A create body of blog_posts that the API accepts, every column given. */
export const validPost = (authorId: string, fileId: string) => ({
  status: 'PUBLISHED',
  data: {
    title: { en: 'Hello world', fr: 'Bonjour' },
    body: 'Some *markdown*',
    sku: 'ABC-1234',
    price: 12.5,
    stock: 3,
    featured: true,
    day: '2026-11-22',
    at: '2026-11-22T10:00:00+01:00',
    contact: 'ada@example.com',
    site: { en: 'https://example.com/en' },
    color: 'red',
    topics: ['news', 'tech'],
    meta: { any: ['json', 1] },
    author: authorId,
    related: [],
    cover: fileId,
    gallery: [fileId],
  },
});

/** Create bodies the API refuses (422 or 400), each for one reason the schema states too. */
export const invalidPosts = (authorId: string) => ({
  'wrong type': { data: { title: 'Hi', price: 'twelve' } },
  'below min': { data: { title: 'Hi', price: -1 } },
  'not an option': { data: { title: 'Hi', color: 'blue' } },
  'unknown column': { data: { title: 'Hi', nope: 1 } },
  'unknown locale': { data: { title: { de: 'Hallo' } } },
  'pattern': { data: { title: 'Hi', sku: 'abc' } },
  'too long': { data: { title: 'x'.repeat(121) } },
  'required missing': { data: { price: 1 } },
  'not an integer': { data: { title: 'Hi', stock: 1.5 } },
  'single reference as array': { data: { title: 'Hi', author: [authorId] } },
});
