import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertValue } from '../../src/modules/schema/conversions.js';
import { planChanges, toWire } from '../../src/modules/schema/plan.js';
import type { Snapshot } from '../../src/modules/schema/schema.schema.js';
import type { ColumnDef } from '../../src/modules/tables/table-def.js';

/** The pure parts of schema as code (docs/environments.md#plans, #type-changes), without a database. */

const def = (type: ColumnDef['type'], settings: ColumnDef['settings'] = {}): ColumnDef => ({ id: '', name: 'v', type, settings });
const snapshot = (tables: Snapshot['tables'], roles: Snapshot['roles'] = []): Snapshot => ({ format: 1, locales: ['en'], defaultLocale: 'en', tables, roles });
const col = (name: string, type: ColumnDef['type'] = 'text', settings: Record<string, unknown> = {}) => ({ name, label: name, type, settings });
const tbl = (key: string, columns: Snapshot['tables'][number]['columns']) => ({ key, name: key, description: '', defaultStatus: 'PUBLISHED' as const, columns });

describe('convertValue', () => {
  it('converts without loss, with loss, or refuses', () => {
    expect(convertValue(def('integer'), def('number'), 3, 'en')).toEqual({ ok: true, value: 3, lossy: false });
    expect(convertValue(def('integer'), def('text'), 3, 'en')).toEqual({ ok: true, value: '3', lossy: false });
    expect(convertValue(def('text'), def('integer'), '12', 'en')).toEqual({ ok: true, value: 12, lossy: false });
    expect(convertValue(def('text'), def('integer'), '007', 'en')).toEqual({ ok: true, value: 7, lossy: true });
    expect(convertValue(def('text'), def('integer'), 'twelve', 'en')).toMatchObject({ ok: false });
    expect(convertValue(def('number'), def('integer'), 1.5, 'en')).toMatchObject({ ok: false });
    expect(convertValue(def('text'), def('boolean'), 'true', 'en')).toEqual({ ok: true, value: true, lossy: false });
    expect(convertValue(def('select', { options: ['a', 'b'] }), def('select', { options: ['a', 'b'], multiple: true }), 'a', 'en')).toEqual({ ok: true, value: ['a'], lossy: false });
    expect(convertValue(def('select', { options: ['a', 'b'], multiple: true }), def('select', { options: ['a', 'b'] }), ['a', 'b'], 'en')).toMatchObject({ ok: false });
    expect(convertValue(def('text', { localized: true }), def('text'), { en: 'hi', fr: 'salut' }, 'en')).toEqual({ ok: true, value: 'hi', lossy: true });
    expect(convertValue(def('text'), def('text', { maxText: 2 }), 'abc', 'en')).toMatchObject({ ok: false });
  });

  it('integer → text → integer gives every integer back, without loss', () => {
    fc.assert(
      fc.property(fc.integer(), (n) => {
        const text = convertValue(def('integer'), def('text'), n, 'en');
        expect(text).toEqual({ ok: true, value: String(n), lossy: false });
        expect(convertValue(def('text'), def('integer'), String(n), 'en')).toEqual({ ok: true, value: n, lossy: false });
      }),
    );
  });
});

describe('planChanges', () => {
  it('a snapshot against itself plans nothing, whatever its order of tables, roles and settings keys', () => {
    const s = snapshot([tbl('b', [col('x', 'integer', { min: 0, max: 9 })]), tbl('a', [col('y')])], [{ name: 'r', description: '', rules: [{ table: 'a', actions: ['read'] }] }]);
    const shuffled = snapshot([tbl('a', [col('y')]), tbl('b', [col('x', 'integer', { max: 9, min: 0 })])], s.roles);
    expect(planChanges(s, shuffled)).toEqual([]);
  });

  it('table settings: none and {} are the same; a new or changed display is an updateTable, never destructive', () => {
    const none = snapshot([tbl('a', [col('y')])]);
    expect(planChanges(none, snapshot([{ ...tbl('a', [col('y')]), settings: {} }]))).toEqual([]);
    const shown = snapshot([{ ...tbl('a', [col('y')]), settings: { display: 'y' } }]);
    expect(toWire(planChanges(none, shown))).toEqual([{ op: 'updateTable', table: 'a', from: { settings: {} }, to: { settings: { display: 'y' } }, destructive: false }]);
    expect(toWire(planChanges(shown, none))).toEqual([{ op: 'updateTable', table: 'a', from: { settings: { display: 'y' } }, to: { settings: {} }, destructive: false }]);
    // A new table: created, then its settings set (after its columns, by the apply).
    expect(toWire(planChanges(snapshot([]), shown)).map((c) => c.op)).toEqual(['createTable', 'updateTable', 'addColumn']);
  });

  it('renamedFrom renames; a slug is added after its source; drops are destructive', () => {
    const current = snapshot([tbl('a', [col('old'), col('gone')])]);
    const target = snapshot([tbl('a', [{ ...col('new'), renamedFrom: 'old' }, col('s', 'slug', { source: 't' }), col('t')])]);
    expect(toWire(planChanges(current, target))).toEqual([
      { op: 'updateTable', table: 'a', from: { columns: ['old', 'gone'] }, to: { columns: ['new', 's', 't'] }, destructive: false },
      { op: 'updateColumn', table: 'a', column: 'new', from: { name: 'old', label: 'old' }, to: { name: 'new', label: 'new' }, destructive: false },
      { op: 'addColumn', table: 'a', column: 't', to: { label: 't', type: 'text', settings: {} }, destructive: false },
      { op: 'addColumn', table: 'a', column: 's', to: { label: 's', type: 'slug', settings: { source: 't' } }, destructive: false },
      { op: 'dropColumn', table: 'a', column: 'gone', from: { label: 'gone', type: 'text', settings: {} }, destructive: true },
    ]);
  });
});
