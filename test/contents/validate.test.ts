/** validateData on its own (no database): merging, defaults, required values and text bounds. */
import { describe, expect, it } from 'vitest';
import type { ColumnDef, TableDef } from '../../src/modules/tables/table-def.js';
import { validateData } from '../../src/modules/contents/rows/validate.js';

const locales = { locales: ['en', 'fr'], defaultLocale: 'en' };

function tableOf(columns: Omit<ColumnDef, 'id'>[]): TableDef {
  return {
    id: '00000000-0000-7000-8000-000000000001',
    projectId: '00000000-0000-7000-8000-000000000002',
    key: 'things',
    defaultStatus: 'DRAFT',
    columns: columns.map((c, i) => ({ ...c, id: `00000000-0000-7000-8000-00000000010${i}` })),
    hiddenKeys: [],
    schemaKey: 'k',
  };
}

describe('validateData', () => {
  it('merges a localized column per locale over the stored row; a revision (no existing row) replaces', () => {
    const table = tableOf([{ name: 'title', type: 'text', settings: { localized: true, required: true } }]);
    const stored = { title: { en: 'Hello', fr: 'Bonjour' } };
    const update = (title: unknown) => validateData(table, locales, { title }, stored);
    expect(update({ fr: 'Salut' })).toMatchObject({ data: { title: { en: 'Hello', fr: 'Salut' } }, details: [] });
    expect(update('Hi')).toMatchObject({ data: { title: { en: 'Hi', fr: 'Bonjour' } }, details: [] });
    expect(update({ fr: null })).toMatchObject({ data: { title: { en: 'Hello' } }, details: [] });
    expect(update({ en: null }).details).toEqual([{ field: 'data.title.en', message: 'is required in the default locale' }]);
    expect(update(null).details).toEqual([{ field: 'data.title', message: 'is required' }]);
    expect(validateData(table, locales, { title: { fr: 'Salut', en: 'Hi' } }, null).data).toEqual({ title: { fr: 'Salut', en: 'Hi' } });
    // The stored row is not changed in place.
    expect(stored).toEqual({ title: { en: 'Hello', fr: 'Bonjour' } });
  });

  it('refuses what PostgreSQL cannot store, naming where: NUL, unpaired surrogates, non-finite numbers, deep nesting', () => {
    const table = tableOf([
      { name: 'title', type: 'text', settings: { localized: true } },
      { name: 'meta', type: 'json', settings: {} },
    ]);
    const fields = (data: Record<string, unknown>) => validateData(table, locales, data, null).details.map((d) => `${d.field}: ${d.message}`);
    expect(fields({ title: { fr: 'a\u0000' } })).toEqual(['data.title.fr: contains a NUL character']);
    expect(fields({ meta: { list: ['ok', '\udfff'] } })).toEqual(['data.meta.list.1: contains an unpaired UTF-16 surrogate']);
    expect(fields({ meta: Infinity })).toEqual(['data.meta: is a number beyond the representable range']);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(fields({ meta: deep })).toEqual([expect.stringMatching(/^data\.meta\.(0\.)+0?.*: nests deeper than 62 levels$/)]);
  });

  it('counts text length in code points, a surrogate pair as one', () => {
    const table = tableOf([{ name: 'title', type: 'text', settings: { minText: 2, maxText: 3 } }]);
    const check = (title: string) => validateData(table, locales, { title }, null).details;
    expect(check('é🎉x')).toEqual([]); // 4 UTF-16 units, 3 code points
    expect(check('🎉🎉')).toEqual([]);
    expect(check('🎉🎉🎉🎉')).toEqual([{ field: 'data.title', message: 'must be at most 3 characters long' }]);
    expect(check('🎉')).toEqual([{ field: 'data.title', message: 'must be at least 2 characters long' }]);
    // Lone surrogates cannot be stored (jsonb refuses them): refused before they are counted.
    expect(check('\ud83c\ud83c')).toEqual([{ field: 'data.title', message: 'contains an unpaired UTF-16 surrogate' }]);
  });

  it('gives a column named like an Object property its default, and requires it', () => {
    const table = tableOf([
      { name: 'constructor', type: 'text', settings: { defaultValue: 'built' } },
      { name: 'toString', type: 'text', settings: { required: true } },
    ]);
    const created = validateData(table, locales, {}, null);
    expect(created.data).toEqual({ constructor: 'built' });
    expect(created.details).toEqual([{ field: 'data.toString', message: 'is required' }]);
  });

  it('merges over the stored data: keeps what is not given, removes nulls, drops keys of deleted columns', () => {
    const table = tableOf([
      { name: 'title', type: 'text', settings: {} },
      { name: 'price', type: 'number', settings: {} },
      { name: 'note', type: 'text', settings: {} },
    ]);
    const updated = validateData(table, locales, { price: 5, note: null }, { title: 'Mug', price: 3, note: 'x', gone: 1 });
    expect(updated).toMatchObject({ data: { title: 'Mug', price: 5 }, details: [] });
    expect(Object.keys(updated.data)).toEqual(['title', 'price']);
  });

  it('names each offending field once, and collects references', () => {
    const table = tableOf([
      { name: 'title', type: 'text', settings: { required: true } },
      { name: 'author', type: 'reference', settings: { table: '00000000-0000-7000-8000-000000000009' } },
    ]);
    const bad = validateData(table, locales, { title: 7, other: 1 }, null);
    expect(bad.details).toEqual([
      { field: 'data.title', message: 'must be a string' },
      { field: 'data.other', message: 'unknown column' },
    ]);
    const id = '0190C0DE-0000-7000-8000-000000000000';
    const good = validateData(table, locales, { title: 'T', author: id }, null);
    expect(good.references).toEqual([{ column: table.columns[1], tableId: '00000000-0000-7000-8000-000000000009', ids: [id.toLowerCase()] }]);
  });
});
