import { describe, expect, it } from 'vitest';
import { actionLabel, actorLabel } from '../../admin/src/pages/revisions/summary.js';
import { diffRows, formatValue, WORD_DIFF_LIMIT, wordDiff, type DiffColumn, type Segment } from '../../admin/src/pages/revisions/diff.js';

const column = (name: string, type: string, settings: Record<string, unknown> = {}): DiffColumn => ({ name, label: name.toUpperCase(), type, settings });
const columns = [column('title', 'text', { localized: true }), column('price', 'number'), column('tags', 'select', { multiple: true, options: ['a', 'b', 'c'] }), column('meta', 'json'), column('live', 'boolean')];
const locales = { locales: ['en', 'de'], defaultLocale: 'en' };
const text = (segments: Segment[]) => segments.map((segment) => segment.text).join('');
const marked = (segments: Segment[]) => segments.filter((segment) => segment.kind !== 'same').map((segment) => `${segment.kind}:${segment.text}`);

describe('diffRows', () => {
  it('marks the changed columns and locales, in column order, with labels, and keeps the unchanged ones', () => {
    const before = { status: 'DRAFT', data: { title: { en: 'Hello world', de: 'Hallo Welt' }, price: 12, tags: ['a'], meta: { x: 1, y: 2 }, live: false } };
    const after = { status: 'PUBLISHED', data: { title: { en: 'Hello there world', de: 'Hallo Welt' }, price: 14, tags: ['a'], meta: { y: 2, x: 1 }, live: true } };
    const diff = diffRows(columns, before, after, locales);
    expect(diff.status).toEqual({ before: 'DRAFT', after: 'PUBLISHED', changed: true });
    expect(diff.columns.map((c) => [c.label, c.changed])).toEqual([
      ['TITLE', true],
      ['PRICE', true],
      ['TAGS', false],
      // Key order alone is no change.
      ['META', false],
      ['LIVE', true],
    ]);
    expect(diff.changedCount).toBe(3);
    const [en, de] = diff.columns[0].values;
    expect(en).toMatchObject({ locale: 'en', changed: true });
    expect(marked(en.after)).toEqual(['added:there ']);
    expect(marked(en.before)).toEqual([]);
    expect(text(en.before)).toBe('Hello world');
    expect(de).toMatchObject({ locale: 'de', changed: false, before: [{ kind: 'same', text: 'Hallo Welt' }] });
    expect(marked(diff.columns[1].values[0].before)).toEqual(['removed:12']);
    expect(marked(diff.columns[1].values[0].after)).toEqual(['added:14']);
    expect(diff.columns[4].values[0]).toMatchObject({ before: [{ kind: 'removed', text: 'No' }], after: [{ kind: 'added', text: 'Yes' }] });
  });

  it('shows every value as added for a first version, and a cleared value as removed', () => {
    const first = diffRows(columns, null, { status: 'DRAFT', data: { title: { de: 'Nur Deutsch' }, price: 3 } }, locales);
    expect(first.status).toEqual({ before: null, after: 'DRAFT', changed: true });
    expect(first.columns[0].values).toEqual([{ locale: 'de', changed: true, before: [], after: [{ kind: 'added', text: 'Nur Deutsch' }] }]);
    expect(first.columns[1].values[0].after).toEqual([{ kind: 'added', text: '3' }]);
    // Columns without a value on either side are unchanged and carry no locale line.
    expect(first.columns[2]).toMatchObject({ changed: false });
    expect(first.columns[0].values.map((v) => v.locale)).toEqual(['de']);

    const cleared = diffRows(columns, { status: 'DRAFT', data: { price: 3, tags: ['a', 'b'] } }, { status: 'DRAFT', data: { price: null, tags: [] } }, locales);
    expect(cleared.status.changed).toBe(false);
    expect(cleared.columns[1].values[0]).toEqual({ locale: null, changed: true, before: [{ kind: 'removed', text: '3' }], after: [] });
    expect(cleared.columns[2].values[0].before).toEqual([{ kind: 'removed', text: 'a, b' }]);
  });

  it('reads a plain value of a localized column as the default locale’s, and keeps locales no longer in the project', () => {
    const diff = diffRows(columns, { status: 'DRAFT', data: { title: 'Plain' } }, { status: 'DRAFT', data: { title: { en: 'Plain', fr: 'Simple' } } }, locales);
    expect(diff.columns[0].values.map((v) => [v.locale, v.changed])).toEqual([
      ['en', false],
      ['fr', true],
    ]);
  });

  it('lists data of columns the table no longer has after its own, by name', () => {
    const diff = diffRows(columns, { status: 'DRAFT', data: { gone: 'x' } }, { status: 'DRAFT', data: {} }, locales);
    expect(diff.columns.at(-1)).toMatchObject({ name: 'gone', label: 'gone', changed: true });
  });

  it('treats an empty string, an empty list and null alike', () => {
    const diff = diffRows(columns, { status: 'DRAFT', data: { title: { en: '' }, tags: [] } }, { status: 'DRAFT', data: { title: null, tags: null } }, locales);
    expect(diff.changedCount).toBe(0);
  });
});

describe('formatValue', () => {
  it('writes values as people read them', () => {
    expect(formatValue(column('b', 'boolean'), true)).toBe('Yes');
    expect(formatValue(column('m', 'select'), ['x', 'y'])).toBe('x, y');
    expect(formatValue(column('j', 'json'), { a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(formatValue(column('n', 'number'), 0)).toBe('0');
    expect(formatValue(column('t', 'text'), null)).toBeNull();
  });

  it('names referenced rows and files by the names given, and compares them by id', () => {
    const names = new Map([
      ['r1', 'Ada Lovelace'],
      ['r2', 'Ada Lovelace'],
      ['f1', 'cover.png'],
    ]);
    expect(formatValue(column('author', 'reference'), 'r1', names)).toBe('Ada Lovelace');
    expect(formatValue(column('related', 'reference', { multiple: true }), ['r1', 'r9'], names)).toBe('Ada Lovelace, r9');
    expect(formatValue(column('cover', 'file'), 'f1', names)).toBe('cover.png');
    const refs = [column('author', 'reference')];
    // Two rows of one label are still a change.
    const diff = diffRows(refs, { status: 'DRAFT', data: { author: 'r1' } }, { status: 'DRAFT', data: { author: 'r2' } }, locales, names);
    expect(diff.columns[0]).toMatchObject({ changed: true, values: [{ before: [{ text: 'Ada Lovelace' }], after: [{ text: 'Ada Lovelace' }] }] });
  });
});

describe('wordDiff', () => {
  it('marks only the words that differ, and keeps the text whole on each side', () => {
    const { before, after } = wordDiff('the quick brown fox jumps', 'the slow red fox jumps high');
    expect(text(before)).toBe('the quick brown fox jumps');
    expect(text(after)).toBe('the slow red fox jumps high');
    // The space between two struck words is struck with them: one phrase.
    expect(marked(before)).toEqual(['removed:quick brown']);
    expect(marked(after)).toEqual(['added:slow red', 'added: high']);
  });

  it('keeps line breaks of long text', () => {
    const { before, after } = wordDiff('# Title\n\nFirst line.\nSecond line.', '# Title\n\nFirst line.\nThird line.');
    expect(marked(before)).toEqual(['removed:Second']);
    expect(marked(after)).toEqual(['added:Third']);
  });

  it('shows a change past the size limit as the whole old and new middle', () => {
    const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    const side = Math.ceil(Math.sqrt(WORD_DIFF_LIMIT));
    const { before, after } = wordDiff(`start ${words(side, 'a')} end`, `start ${words(side, 'b')} end`);
    expect(before.map((s) => s.kind)).toEqual(['same', 'removed', 'same']);
    expect(after.map((s) => s.kind)).toEqual(['same', 'added', 'same']);
    expect(text(after)).toBe(`start ${words(side, 'b')} end`);
  });
});

describe('actorLabel and actionLabel', () => {
  const names = { me: 'a1', accounts: new Map([['a2', 'Ada']]), apiKeys: new Map([['k1', 'Importer']]) };
  it('names who made a change: you, a member, a key, or an id when the name is not known', () => {
    expect(actorLabel({ type: 'account', id: 'a1' }, names)).toBe('you');
    expect(actorLabel({ type: 'account', id: 'a2' }, names)).toBe('Ada');
    expect(actorLabel({ type: 'apiKey', id: 'k1' }, names)).toBe('API key “Importer”');
    expect(actorLabel({ type: 'apiKey', id: '0190a3f5-0000-7000' }, names)).toBe('API key 0190a3f5');
    expect(actorLabel({ type: 'account', id: '0190a3f6-0000-7000' }, names)).toBe('account 0190a3f6');
    expect(actorLabel(null, names)).toBe('someone (not recorded)');
    expect(actionLabel('draftPublished')).toBe('Published the draft');
  });
});
