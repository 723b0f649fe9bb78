import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../../db/sql.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import type { Rule } from '../roles/role.schema.js';
import type { ColumnSettings, ColumnType } from '../tables/table-def.js';
import type { ContentStatus } from '../tables/table.entity.js';
import {
  SNAPSHOT_FORMAT,
  type Snapshot,
  type SnapshotColumn,
  type SnapshotRole,
  type SnapshotTable,
  type SnapshotTableSettings,
} from './schema.schema.js';
import { projectColumns, projectRoles, projectTables } from './schema.sql.js';

/**
 * A project's schema as a snapshot (docs/environments.md#snapshots), with the ids behind its
 * names for the apply. The order is fixed (tables by key, columns by position, roles by name,
 * object keys sorted), so that two snapshots of equal schemas are equal texts.
 */
export interface CurrentSchema {
  snapshot: Snapshot;
  tableIds: Map<string, string>;
  /** By `columnKey(table, column)`. */
  columnIds: Map<string, string>;
  roleIds: Map<string, string>;
}

export const columnKey = (table: string, column: string) => `${table}\u0000${column}`;

/** Code-unit order: the same in every process, whatever the database's collation. */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A copy of a JSON value with every object's keys in code-unit order. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(byText)) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted as T;
}

/** The text two values are compared by: equal texts, equal values. */
export const canonical = (value: unknown): string => JSON.stringify(sortKeys(value));

/** Rules in the shape order of the rule schema, their filter items' keys sorted. */
export function canonicalRules(rules: Rule[]): Rule[] {
  return rules.map((r) => {
    const out: Rule = { table: r.table, actions: [...r.actions] };
    if (r.where !== undefined) out.where = sortKeys(r.where);
    if (r.fields !== undefined) {
      out.fields = {};
      if (r.fields.read !== undefined) out.fields.read = [...r.fields.read];
      if (r.fields.write !== undefined) out.fields.write = [...r.fields.write];
    }
    if (r.statuses !== undefined) out.statuses = [...r.statuses];
    if (r.drafts !== undefined) out.drafts = r.drafts;
    if (r.writeAsDraft !== undefined) out.writeAsDraft = r.writeAsDraft;
    return out;
  });
}

export const canonicalRole = (r: Pick<SnapshotRole, 'name' | 'description' | 'rules'>): SnapshotRole => ({
  name: r.name,
  description: r.description,
  rules: canonicalRules(r.rules),
});

/**
 * A table in snapshot form: `settings` sits after `defaultStatus`, its keys sorted, and is left
 * out when empty, so that the snapshot of a table without settings has no `settings` at all.
 */
export function canonicalTable(t: Omit<SnapshotTable, 'settings'> & { settings?: SnapshotTableSettings | null }): SnapshotTable {
  const settings = t.settings && Object.keys(t.settings).length > 0 ? { settings: sortKeys(t.settings) } : {};
  return { key: t.key, name: t.name, description: t.description, defaultStatus: t.defaultStatus, ...settings, columns: t.columns };
}

export const canonicalColumn = (c: SnapshotColumn): SnapshotColumn => ({ name: c.name, label: c.label, type: c.type, settings: sortKeys(c.settings) });

interface TableRow {
  id: string;
  key: string;
  name: string;
  description: string;
  default_status: ContentStatus;
  settings: SnapshotTableSettings;
}
interface ColumnRow {
  id: string;
  table_id: string;
  name: string;
  label: string;
  type: ColumnType;
  settings: ColumnSettings;
}
interface RoleRow {
  id: string;
  name: string;
  description: string;
  rules: Rule[];
}

export async function readSchema(em: EntityManager, project: ProjectInfo): Promise<CurrentSchema> {
  const [tableRows, columnRows, roleRows] = await Promise.all([
    runSql<TableRow>(em, projectTables(project.id)),
    runSql<ColumnRow>(em, projectColumns(project.id)),
    runSql<RoleRow>(em, projectRoles(project.id)),
  ]);
  const keyOf = new Map(tableRows.map((t) => [t.id, t.key]));
  const tableIds = new Map(tableRows.map((t) => [t.key, t.id]));
  const columnIds = new Map<string, string>();
  const columnsOf = new Map<string, SnapshotColumn[]>();
  for (const c of columnRows) {
    const key = keyOf.get(c.table_id)!;
    columnIds.set(columnKey(key, c.name), c.id);
    // References name their table by key; one whose table is gone keeps the id it holds.
    const settings = c.type === 'reference' && c.settings.table ? { ...c.settings, table: keyOf.get(c.settings.table) ?? c.settings.table } : c.settings;
    const list = columnsOf.get(key) ?? [];
    list.push(canonicalColumn({ name: c.name, label: c.label, type: c.type, settings: settings as Record<string, unknown> }));
    columnsOf.set(key, list);
  }
  const tables: SnapshotTable[] = tableRows
    .map((t) => canonicalTable({ key: t.key, name: t.name, description: t.description, defaultStatus: t.default_status, settings: t.settings, columns: columnsOf.get(t.key) ?? [] }))
    .sort((a, b) => byText(a.key, b.key));
  const roles = roleRows.map(canonicalRole).sort((a, b) => byText(a.name, b.name));
  return {
    snapshot: { format: SNAPSHOT_FORMAT, locales: [...project.locales], defaultLocale: project.defaultLocale, tables, roles },
    tableIds,
    columnIds,
    roleIds: new Map(roleRows.map((r) => [r.name, r.id])),
  };
}
