import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectCreated, expectStatus } from '../helpers/expect.js';
import { apply, pull, type Change, type Snapshot, type SnapshotColumn, type SnapshotTable } from './fixture.js';

/**
 * Random snapshots applied to random projects holding rows (docs/environments.md#applying):
 * either the project becomes the snapshot (a pull answers it, normalised as documented) and no
 * value is lost outside the changes flagged destructive, or nothing changes at all and the
 * error says why (409 naming destructive changes, 422 naming columns or roles).
 */

let t: TestApi;
let workspaceId: string;

beforeAll(async () => {
  t = await startTestApi();
  workspaceId = expectCreated(await t.call('POST', '/v1/workspaces', { body: { name: 'Property' } })).id;
});
afterAll(async () => t?.close());

const TYPES = ['text', 'integer', 'number', 'boolean', 'select', 'json'] as const;
type Kind = (typeof TYPES)[number];

const settingsOf = (type: Kind): fc.Arbitrary<Record<string, unknown>> => {
  const common = { required: fc.constantFrom(false, false, false, true) };
  switch (type) {
    case 'text':
      return fc.record({ ...common, unique: fc.boolean(), maxText: fc.constantFrom(1, 3, 50) }, { requiredKeys: [] });
    case 'integer':
      return fc.record({ ...common, unique: fc.boolean(), min: fc.constantFrom(-1, 0), defaultValue: fc.constantFrom(0, 3) }, { requiredKeys: [] });
    case 'number':
      return fc.record({ ...common, max: fc.constantFrom(2, 100) }, { requiredKeys: [] });
    case 'select':
      return fc.record({ ...common, options: fc.constantFrom(['x', 'y'], ['x'], ['y', 'z']) }, { requiredKeys: ['options'] });
    default:
      return fc.record(common, { requiredKeys: [] });
  }
};

const columnArb: fc.Arbitrary<SnapshotColumn> = fc
  .record({ name: fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5'), type: fc.constantFrom(...TYPES), label: fc.constantFrom('', 'Label') })
  .chain((c) => settingsOf(c.type).map((settings) => ({ name: c.name, label: c.label || c.name, type: c.type, settings })));

/** No settings, or a display naming one or two of the table's columns (a name or a template). */
const settingsOfTable = (columns: SnapshotColumn[]): fc.Arbitrary<SnapshotTable['settings']> => {
  if (columns.length === 0) return fc.constant(undefined);
  const name = fc.constantFrom(...columns.map((c) => c.name));
  return fc.oneof(
    fc.constant(undefined),
    fc.constant({}),
    name.map((display) => ({ display })),
    fc.tuple(name, name).map(([x, y]) => ({ display: `{{${x}}} – {{${y}}}` })),
  );
};

const tableArb: fc.Arbitrary<SnapshotTable> = fc
  .record({
    key: fc.constantFrom('a', 'b', 'c'),
    name: fc.constantFrom('A', 'B'),
    description: fc.constantFrom('', 'd'),
    defaultStatus: fc.constantFrom('PUBLISHED', 'DRAFT'),
    columns: fc.uniqueArray(columnArb, { maxLength: 4, selector: (c) => c.name }),
  })
  .chain((table) => settingsOfTable(table.columns).map((settings) => (settings === undefined ? table : { ...table, settings })));

const snapshotArb: fc.Arbitrary<Snapshot> = fc
  .record({ tables: fc.uniqueArray(tableArb, { maxLength: 3, selector: (x) => x.key }), roleNames: fc.uniqueArray(fc.constantFrom('r1', 'r2'), { maxLength: 2 }), pick: fc.nat() })
  .map(({ tables, roleNames, pick }) => ({
    format: 1 as const,
    locales: ['en'],
    defaultLocale: 'en',
    tables,
    roles: roleNames.map((name, i) => {
      const table = tables.length > 0 ? tables[(pick + i) % tables.length] : undefined;
      const column = table?.columns[0];
      const rule = table ? { table: table.key, actions: ['read'], ...(column ? { fields: { read: [column.name] } } : {}) } : { table: '*', actions: ['read'] };
      return { name, description: '', rules: [rule] };
    }),
  }));

/** The same tables and column names as `s`, each column keeping or changing its type and settings: conversions and new constraints. */
const reshapedArb = (s: Snapshot): fc.Arbitrary<Snapshot> =>
  fc
    .tuple(
      ...s.tables.map((table) =>
        fc.tuple(
          ...table.columns.map((c) =>
            fc.oneof(
              fc.constant(c),
              fc.constantFrom(...TYPES).chain((type) => settingsOf(type).map((settings) => ({ ...c, type, settings }))),
            ),
          ),
        ),
      ),
    )
    .map((columns) => ({ ...s, tables: s.tables.map((table, i) => ({ ...table, columns: columns[i] as SnapshotColumn[] })) }));

const valueArb = (type: Kind): fc.Arbitrary<unknown> =>
  ({
    text: fc.constantFrom('a', 'bb', '10', '007', 'true'),
    integer: fc.integer({ min: -2, max: 4 }),
    number: fc.constantFrom(1.5, 2, 7),
    boolean: fc.boolean(),
    select: fc.constantFrom('x', 'y'),
    json: fc.constantFrom({ k: 1 }, [1], 'j', 3, [], [2, 3]),
  })[type];

/** For each table of the first snapshot, a few rows of values for its columns (some writes are refused: fine). */
const rowsArb = (s: Snapshot) =>
  fc.tuple(...s.tables.map((table) => fc.array(fc.record(Object.fromEntries(table.columns.map((c) => [c.name, valueArb(c.type as Kind)])), { requiredKeys: [] }), { maxLength: 3 })));

/** The documented normalisation: tables by key, roles by name, object keys sorted, `renamedFrom` and empty table settings dropped. */
function normalised(s: Snapshot): Snapshot {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])])) : v;
  return {
    ...s,
    tables: [...s.tables].sort((x, y) => (x.key < y.key ? -1 : 1)).map(({ settings, ...x }) => ({ ...x, ...(settings && Object.keys(settings).length > 0 ? { settings } : {}), columns: x.columns.map(({ renamedFrom: _r, ...c }) => ({ ...c, settings: sortKeys(c.settings) as Record<string, unknown> })) })),
    roles: [...s.roles].sort((x, y) => (x.name < y.name ? -1 : 1)),
  };
}

/** Gives a new column of a kept table the name of a column the target no longer has, when `flags` say so. */
function withRenames(from: Snapshot, to: Snapshot, flags: boolean[]): Snapshot {
  let i = 0;
  const tables = to.tables.map((table) => {
    const before = from.tables.find((x) => x.key === table.key);
    if (!before) return table;
    const free = before.columns.map((c) => c.name).filter((name) => !table.columns.some((c) => c.name === name));
    const columns = table.columns.map((c) => {
      if (before.columns.some((b) => b.name === c.name) || free.length === 0 || !flags[i++ % Math.max(flags.length, 1)]) return c;
      return { ...c, renamedFrom: free.shift()! };
    });
    return { ...table, columns };
  });
  return { ...to, tables };
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

type Rows = Map<string, Map<string, Record<string, unknown>>>;
async function readRows(projectId: string, s: Snapshot): Promise<Rows> {
  const rows: Rows = new Map();
  for (const table of s.tables) {
    const res = await t.call('GET', `/v1/${projectId}/tables/${table.key}/contents?size=1000`);
    if (res.status === 404) continue;
    rows.set(table.key, new Map((expectStatus(res, 200).list as { id: string; data: Record<string, unknown> }[]).map((r) => [r.id, r.data])));
  }
  return rows;
}

describe('apply, property', () => {
  it('a random snapshot over random rows: all of it with no unflagged loss, or nothing with the reason', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        snapshotArb.chain((first) => fc.record({ first: fc.constant(first), rows: rowsArb(first), next: fc.oneof(snapshotArb, reshapedArb(first)), flags: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), allowDestructive: fc.boolean() })),
        async ({ first, rows, next: drawn, flags, allowDestructive }) => {
          const project = expectCreated(await t.call('POST', `/v1/workspaces/${workspaceId}/projects`, { body: { name: 'P' } })).id as string;
          expectStatus(await apply(t, project, first), 200);
          for (const [i, table] of first.tables.entries()) {
            for (const data of rows[i]) await t.call('POST', `/v1/${project}/tables/${table.key}/contents`, { body: { data } });
          }
          const next = withRenames(first, drawn, flags);
          const before = await pull(t, project);
          const rowsBefore = await readRows(project, first);

          const res = await apply(t, project, next, { allowDestructive });
          const after = await pull(t, project);
          const rowsAfter = await readRows(project, first);
          if (res.status !== 200) {
            expect([409, 422], res.text).toContain(res.status);
            if (res.status === 409) {
              expect(allowDestructive).toBe(false);
              expect(res.json.error.message).toMatch(/destructive changes.*: (drop|update)/);
            } else {
              expect(res.json.error.details.length).toBeGreaterThan(0);
              for (const d of res.json.error.details) expect(d.field).toMatch(/^(tables|roles)\./);
            }
            expect(after.text).toBe(before.text);
            expect(rowsAfter).toEqual(rowsBefore);
            return;
          }
          const changes = res.json.changes as Change[];
          if (!allowDestructive) expect(changes.filter((c) => c.destructive)).toEqual([]);
          expect(after.snapshot).toEqual(normalised(next));
          // Rows of kept tables are all there; kept columns keep their values unless flagged destructive.
          for (const table of next.tables) {
            const old = rowsBefore.get(table.key);
            if (!old) continue;
            const now = rowsAfter.get(table.key)!;
            expect([...now.keys()].sort()).toEqual([...old.keys()].sort());
            for (const column of table.columns) {
              const source = first.tables.find((x) => x.key === table.key)!.columns.find((c) => c.name === (column.renamedFrom ?? column.name));
              if (!source) continue;
              if (changes.some((c) => c.op === 'updateColumn' && c.table === table.key && c.column === column.name && c.destructive)) continue;
              for (const [id, data] of old) if (!isEmpty(data[source.name])) expect(isEmpty(now.get(id)![column.name]), `${table.key}.${column.name} of ${id}`).toBe(false);
            }
          }
          expect((await apply(t, project, next, { allowDestructive })).json).toEqual({ changes: [] });
        },
      ),
      { numRuns: Number(process.env.SCHEMA_PROPERTY_RUNS ?? 25) },
    );
  });
});
