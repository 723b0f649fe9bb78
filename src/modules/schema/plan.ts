import type { Change } from './schema.schema.js';
import type { Snapshot, SnapshotColumn, SnapshotTable } from './schema.schema.js';
import { byText, canonical, canonicalColumn, canonicalRole, canonicalTable } from './snapshot.js';

/**
 * The plan that turns one snapshot into another (docs/environments.md#plans), without I/O: which
 * tables, columns and roles to create, change and drop, in the order they are applied. Row
 * counts and the `destructive` flag of type changes need the stored rows: checks.ts adds them.
 */

/** A column change with what the apply needs beyond the wire: the column before and after. */
export interface PlannedChange extends Change {
  /** addColumn, updateColumn: the column as the snapshot wants it. */
  target?: SnapshotColumn;
  /** updateColumn, dropColumn: the column as it is (its current name). */
  current?: SnapshotColumn;
  /** updateTable: the column names in their new order, when it changes. */
  order?: string[];
}

/** The target in the order and form a snapshot is read in (tables by key, roles by name, keys sorted). */
export function normalise(target: Snapshot): Snapshot {
  return {
    format: target.format,
    locales: [...target.locales],
    defaultLocale: target.defaultLocale,
    tables: target.tables
      .map((t) => canonicalTable({ ...t, columns: t.columns.map(withRename) }))
      .sort((a, b) => byText(a.key, b.key)),
    roles: target.roles.map(canonicalRole).sort((a, b) => byText(a.name, b.name)),
  };
}

const withRename = (c: SnapshotColumn): SnapshotColumn => ({ ...canonicalColumn(c), ...(c.renamedFrom !== undefined ? { renamedFrom: c.renamedFrom } : {}) });

/** The fields of `keys` whose canonical texts differ, as `from` and `to`. */
function differing<T extends object>(a: T, b: T, keys: (keyof T & string)[]): { from: Record<string, unknown>; to: Record<string, unknown> } | null {
  const from: Record<string, unknown> = {};
  const to: Record<string, unknown> = {};
  for (const key of keys) {
    if (canonical(a[key]) === canonical(b[key])) continue;
    from[key] = a[key];
    to[key] = b[key];
  }
  return Object.keys(from).length > 0 ? { from, to } : null;
}

/** The fields an updateTable compares; no settings and `{}` are the same. */
const tableBody = (t: SnapshotTable) => ({ name: t.name, description: t.description, defaultStatus: t.defaultStatus, settings: t.settings ?? {} });

const columnBody = (c: SnapshotColumn) => ({ label: c.label, type: c.type, settings: c.settings });

/** For each target column, the current column it continues (by name, else by `renamedFrom`). */
function matchColumns(current: SnapshotTable, target: SnapshotTable): Map<SnapshotColumn, SnapshotColumn | undefined> {
  const byName = new Map(current.columns.map((c) => [c.name, c]));
  const wanted = new Set(target.columns.map((c) => c.name));
  const matched = new Map<SnapshotColumn, SnapshotColumn | undefined>();
  for (const column of target.columns) {
    const same = byName.get(column.name);
    // A rename whose old name the target still uses is no rename (snapshot-rules.ts refuses it).
    const renamed = column.renamedFrom !== undefined && !wanted.has(column.renamedFrom) ? byName.get(column.renamedFrom) : undefined;
    matched.set(column, same ?? renamed);
  }
  return matched;
}

function columnChanges(key: string, current: SnapshotTable, target: SnapshotTable): { changes: PlannedChange[]; order?: string[] } {
  const matched = matchColumns(current, target);
  const kept = new Set([...matched.values()].filter((c) => c !== undefined));
  const updates: PlannedChange[] = [];
  const adds: PlannedChange[] = [];
  for (const column of target.columns) {
    const was = matched.get(column);
    if (!was) {
      adds.push({ op: 'addColumn', table: key, column: column.name, to: columnBody(column), destructive: false, target: column });
      continue;
    }
    const diff = differing({ name: was.name, ...columnBody(was) }, { name: column.name, ...columnBody(column) }, ['name', 'label', 'type', 'settings']);
    if (diff) updates.push({ op: 'updateColumn', table: key, column: column.name, ...diff, destructive: false, target: column, current: was });
  }
  // A slug's source must exist when the slug column is added: slugs last (positions are set after).
  adds.sort((a, b) => Number(a.target!.type === 'slug') - Number(b.target!.type === 'slug'));
  const drops: PlannedChange[] = current.columns
    .filter((c) => !kept.has(c))
    .map((c) => ({ op: 'dropColumn', table: key, column: c.name, from: columnBody(c), destructive: true, current: c }));
  // New columns are appended: the order changes unless the target lists the kept ones first, in their order.
  const after = [...current.columns.filter((c) => kept.has(c)).map((c) => target.columns.find((t) => matched.get(t) === c)!.name), ...adds.map((a) => a.column!)];
  const wantedOrder = target.columns.map((c) => c.name);
  const order = canonical(after) === canonical(wantedOrder) ? undefined : wantedOrder;
  return { changes: [...updates, ...adds, ...drops], order };
}

export function planChanges(currentSnapshot: Snapshot, targetSnapshot: Snapshot): PlannedChange[] {
  const current = normalise(currentSnapshot);
  const target = normalise(targetSnapshot);
  const currentTables = new Map(current.tables.map((t) => [t.key, t]));
  const targetKeys = new Set(target.tables.map((t) => t.key));
  const creates: PlannedChange[] = [];
  const tableChanges: PlannedChange[] = [];
  for (const table of target.tables) {
    const was = currentTables.get(table.key) ?? { key: table.key, name: table.name, description: table.description, defaultStatus: table.defaultStatus, columns: [] };
    if (!currentTables.has(table.key)) {
      creates.push({ op: 'createTable', table: table.key, to: { name: table.name, description: table.description, defaultStatus: table.defaultStatus }, destructive: false });
    }
    const { changes, order } = columnChanges(table.key, was, table);
    // A display may name a column this plan adds or renames: the apply sets settings after the columns.
    const fields = differing(tableBody(was), tableBody(table), ['name', 'description', 'defaultStatus', 'settings']);
    if (fields || order) {
      const from = { ...fields?.from, ...(order ? { columns: was.columns.map((c) => c.name) } : {}) };
      const to = { ...fields?.to, ...(order ? { columns: order } : {}) };
      tableChanges.push({ op: 'updateTable', table: table.key, from, to, destructive: false, order });
    }
    tableChanges.push(...changes);
  }
  const drops: PlannedChange[] = current.tables
    .filter((t) => !targetKeys.has(t.key))
    .map((t) => ({ op: 'dropTable', table: t.key, from: { name: t.name, description: t.description, defaultStatus: t.defaultStatus }, destructive: true }));

  const currentRoles = new Map(current.roles.map((r) => [r.name, r]));
  const targetRoles = new Set(target.roles.map((r) => r.name));
  const roleChanges: PlannedChange[] = [
    ...current.roles.filter((r) => !targetRoles.has(r.name)).map((r): PlannedChange => ({ op: 'dropRole', role: r.name, from: { description: r.description, rules: r.rules }, destructive: false })),
  ];
  for (const role of target.roles) {
    const was = currentRoles.get(role.name);
    if (!was) {
      roleChanges.push({ op: 'createRole', role: role.name, to: { description: role.description, rules: role.rules }, destructive: false });
      continue;
    }
    const diff = differing(was, role, ['description', 'rules']);
    if (diff) roleChanges.push({ op: 'updateRole', role: role.name, ...diff, destructive: false });
  }
  return [...creates, ...tableChanges, ...drops, ...roleChanges];
}

/** The wire form of a plan: the internal fields left out. */
export const toWire = (changes: PlannedChange[]): Change[] =>
  changes.map(({ target: _t, current: _c, order: _o, ...change }) => change);
