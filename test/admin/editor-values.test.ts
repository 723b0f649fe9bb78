import { describe, expect, it } from 'vitest';
import { buildData, defaultFields, rowLabel, sameValue, titleColumn, toField, toFields, type Column } from '../../admin/src/pages/editor/values.js';
import { displayColumns, displayFilter } from '../../admin/src/pages/editor/display-search.js';

/** The editor's conversions between stored values (docs/contents.md#tables-and-columns) and what its inputs hold. */
const column = (name: string, type: string, settings: Record<string, unknown> = {}): Column => ({ name, type, settings });
const locales = ['en', 'de'];

describe('editor values', () => {
  const columns = [
    column('title', 'text', { localized: true }),
    column('price', 'number'),
    column('featured', 'boolean'),
    column('launchAt', 'datetime'),
    column('meta', 'json'),
    column('tags', 'select', { options: ['a', 'b'], multiple: true }),
    column('author', 'reference', { table: 't' }),
  ];

  it('turns stored values into input values and back, unchanged', () => {
    const stored = { title: { en: 'Hello', de: 'Hallo' }, price: 12.5, featured: true, launchAt: '2026-12-24T18:30:00.000Z', meta: { n: [1, 2] }, tags: ['b'], author: 'x' };
    const fields = toFields(columns, stored, locales);
    expect(fields.title).toEqual({ en: 'Hello', de: 'Hallo' });
    expect(fields.price).toBe('12.5');
    const { data, errors } = buildData(columns, fields, columns.map((c) => c.name));
    expect(errors).toEqual({});
    expect(data).toEqual(stored);
  });

  it('sends empty values as null, an emptied locale of a localized column as null (updates merge per locale)', () => {
    const { data } = buildData(columns, { title: { en: 'Hi', de: '' }, price: '', author: null, tags: [] }, ['title', 'price', 'author', 'tags']);
    expect(data).toEqual({ title: { en: 'Hi', de: null }, price: null, author: null, tags: [] });
    expect(buildData(columns, { title: { en: '', de: '' } }, ['title']).data).toEqual({ title: null });
  });

  it('leaves a number it cannot read to the API, and refuses JSON it cannot parse at the field', () => {
    const { data, errors } = buildData(columns, { price: '12,5', meta: '{oops' }, ['price', 'meta']);
    expect(data).toEqual({ price: '12,5' });
    expect(errors).toEqual({ 'data.meta': 'is not valid JSON' });
  });

  it('starts a new row from the defaults, a localized default under the default locale', () => {
    const fields = defaultFields([column('title', 'text', { localized: true, defaultValue: 'Untitled' }), column('featured', 'boolean')], locales, 'en');
    expect(fields).toEqual({ title: { en: 'Untitled', de: '' }, featured: false });
    expect(toField(column('tags', 'select', { multiple: true }), null, locales)).toEqual([]);
  });

  it('names a row by its title-like column, then its slug, then its id', () => {
    const cols = [column('code', 'text'), column('name', 'text', { localized: true }), column('slug', 'slug')];
    const title = titleColumn(cols);
    expect(title?.name).toBe('name');
    expect(rowLabel({ id: '1', slug: 's', data: { name: { de: 'Nur deutsch' } } }, title, 'en')).toBe('Nur deutsch');
    expect(rowLabel({ id: '1', slug: 's', data: {} }, title, 'en')).toBe('s');
    expect(rowLabel({ id: '1', data: {} }, undefined, 'en')).toBe('1');
  });

  it('compares form values as they are: texts, lists in order, locales whatever their order', () => {
    const long = 'x'.repeat(1_000_000);
    expect(sameValue(long, `${'x'.repeat(999_999)}x`)).toBe(true);
    expect(sameValue(long, `${long}y`)).toBe(false);
    expect(sameValue(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameValue(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameValue({ en: 'Hi', de: 'Hallo' }, { de: 'Hallo', en: 'Hi' })).toBe(true);
    expect(sameValue({ en: 'Hi' }, { en: 'Hi', de: '' })).toBe(false);
    expect(sameValue(null, '')).toBe(false);
    expect(sameValue(false, null)).toBe(false);
    expect(sameValue(undefined, null)).toBe(false);
  });

  it('searches the columns of a row label: parts of texts, whole numbers and options, a slug or a pasted id', () => {
    const spices = [column('name', 'text', { localized: true }), column('number', 'integer'), column('kind', 'select', { options: ['seed'] }), column('meta', 'json')];
    const shown = displayColumns('No. {{number}}: {{name}} ({{kind}}) {{missing}}', spices);
    expect(shown.map((c) => c.name)).toEqual(['number', 'name', 'kind']);
    expect(JSON.parse(displayFilter(' prik ', shown, 'de')!)).toEqual([
      { i: 'name', w: 'contains', v: 'prik', l: 'de' },
      { i: 'kind', w: 'eq', v: 'prik' },
      { i: 'slug', w: 'contains', v: 'prik' },
    ]);
    expect(JSON.parse(displayFilter('42', shown, 'en')!)[0]).toEqual({ i: 'number', w: 'eq', v: '42' });
    const id = '01A2208B-4CC9-749C-8F84-9E5C7B438082';
    expect(JSON.parse(displayFilter(id, shown, 'en')!).at(-1)).toEqual({ i: 'id', w: 'eq', v: id.toLowerCase() });
    expect(displayFilter('  ', shown, 'en')).toBeNull();
    expect(displayColumns(undefined, spices)).toEqual([]);
  });
});
