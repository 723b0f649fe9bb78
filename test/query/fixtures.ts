import type { ColumnDef, ColumnSettings, ColumnType, TableDef } from '../../src/modules/tables/table-def.js';

let n = 0;
const column = (name: string, type: ColumnType, settings: ColumnSettings = {}): ColumnDef => {
  n += 1;
  return { id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, name, type, settings };
};

export const TABLE_ID = '11111111-1111-4111-8111-111111111111';
export const REFERENCED_TABLE_ID = '22222222-2222-4222-8222-222222222222';

/** One column of every type (and the multiple/localized variants), plus a column called `status`. */
export function testTable(id = TABLE_ID): TableDef {
  n = 0;
  return {
    id,
    projectId: '33333333-3333-4333-8333-333333333333',
    key: 'things',
    defaultStatus: 'PUBLISHED',
    hiddenKeys: [],
  schemaKey: 'test',
    columns: [
      column('title', 'text'),
      column('name', 'text', { localized: true }),
      column('body', 'longtext', { localized: true }),
      column('email', 'email'),
      column('site', 'url'),
      column('handle', 'slug', { source: 'title' }),
      column('price', 'number'),
      column('qty', 'integer'),
      column('active', 'boolean'),
      column('day', 'date'),
      column('at', 'datetime'),
      column('category', 'select', { options: ['a', 'b', 'c'] }),
      column('tags', 'select', { options: ['x', 'y', 'z'], multiple: true }),
      column('author', 'reference', { table: REFERENCED_TABLE_ID }),
      column('authors', 'reference', { table: REFERENCED_TABLE_ID, multiple: true }),
      column('cover', 'file'),
      column('gallery', 'file', { multiple: true }),
      column('meta', 'json'),
      column('note', 'text'),
      column('status', 'text'),
    ],
  };
}

export const PROJECT = { locales: ['en', 'fr'], defaultLocale: 'en' };

export const TEXT_OPS = ['eq', 'neq', 'in', 'nin', 'contains', 'ncontains', 'startsWith', 'endsWith', 'null'];
export const ORDERED_OPS = ['eq', 'neq', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'between', 'null'];
export const EXACT_OPS = ['eq', 'neq', 'in', 'nin', 'null'];
export const ALL_OPS = [...new Set([...TEXT_OPS, ...ORDERED_OPS])];

const UUID = 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA';

/**
 * Every filterable field: the operators docs/contents.md#list-queries allows on it (written out here, not
 * taken from the implementation), a sample value string, and how messages name it.
 */
export const FIELD_MATRIX: { i: string; ops: string[]; sample: string; describe: string }[] = [
  { i: 'title', ops: TEXT_OPS, sample: 'Alpha', describe: 'text column "title"' },
  { i: 'name', ops: TEXT_OPS, sample: 'E01', describe: 'text column "name"' },
  { i: 'body', ops: TEXT_OPS, sample: 'x', describe: 'longtext column "body"' },
  { i: 'email', ops: TEXT_OPS, sample: 'a@b.co', describe: 'email column "email"' },
  { i: 'site', ops: TEXT_OPS, sample: 'https://x.y', describe: 'url column "site"' },
  { i: 'handle', ops: TEXT_OPS, sample: 'alpha-01', describe: 'slug column "handle"' },
  { i: 'price', ops: ORDERED_OPS, sample: '12.5', describe: 'number column "price"' },
  { i: 'qty', ops: ORDERED_OPS, sample: '3', describe: 'integer column "qty"' },
  { i: 'day', ops: ORDERED_OPS, sample: '2026-01-02', describe: 'date column "day"' },
  { i: 'at', ops: ORDERED_OPS, sample: '2026-01-02T03:04:05Z', describe: 'datetime column "at"' },
  { i: 'active', ops: EXACT_OPS, sample: 'true', describe: 'boolean column "active"' },
  { i: 'category', ops: EXACT_OPS, sample: 'a', describe: 'select column "category"' },
  { i: 'tags', ops: EXACT_OPS, sample: 'x', describe: 'multiple select column "tags"' },
  { i: 'author', ops: EXACT_OPS, sample: UUID, describe: 'reference column "author"' },
  { i: 'authors', ops: EXACT_OPS, sample: UUID, describe: 'multiple reference column "authors"' },
  { i: 'cover', ops: EXACT_OPS, sample: UUID, describe: 'file column "cover"' },
  { i: 'gallery', ops: EXACT_OPS, sample: UUID, describe: 'multiple file column "gallery"' },
  { i: 'meta', ops: ['null'], sample: '{}', describe: 'json column "meta"' },
  { i: 'data.status', ops: TEXT_OPS, sample: 's1', describe: 'text column "status"' },
  { i: 'id', ops: EXACT_OPS, sample: UUID, describe: 'system field "id"' },
  { i: 'slug', ops: TEXT_OPS, sample: 'item-01', describe: 'system field "slug"' },
  { i: 'status', ops: EXACT_OPS, sample: 'PUBLISHED', describe: 'system field "status"' },
  { i: 'createdAt', ops: ORDERED_OPS, sample: '2026-01-02T03:04:05.123456Z', describe: 'system field "createdAt"' },
  { i: 'updatedAt', ops: ORDERED_OPS, sample: '2026-01-02', describe: 'system field "updatedAt"' },
  { i: 'publishedAt', ops: ORDERED_OPS, sample: '2026-01-02T03:04:05+02:00', describe: 'system field "publishedAt"' },
  { i: 'publishAt', ops: ORDERED_OPS, sample: '2026-01-02T03:04', describe: 'system field "publishAt"' },
];

/** A filter item with a value of the right shape for `w`. */
export function sampleFilter(i: string, w: string, sample: string): Record<string, unknown> {
  const v = w === 'null' ? true : w === 'in' || w === 'nin' || w === 'between' ? [sample, sample] : sample;
  return { i, w, v };
}

export const json = (v: unknown) => JSON.stringify(v);
