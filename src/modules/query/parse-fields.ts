import { invalidQuery } from '../../errors/app-error.js';
import type { ColumnDef, TableDef } from '../tables/table-def.js';
import { OUTPUT_SYSTEM_FIELDS, SYSTEM_FIELDS, type OutputSystemField, type Projection, type SystemField } from './types.js';

/** In `fields`: every column of the table. */
export const EVERY_COLUMN = 'data.*';

export type ResolvedName = { system: SystemField; column: ColumnDef | null } | { system: null; column: ColumnDef };

const isSystemField = (name: string): name is SystemField => (SYSTEM_FIELDS as readonly string[]).includes(name);

/**
 * Resolves a name given in `fields`, `sort[].i` or `filter[].i`: a system field name means the
 * system field (`column` is then the same-named column, if any); `data.<name>` always means the
 * column, which is how a column called e.g. `status` is reached. Null when nothing matches.
 */
export function resolveName(name: string, table: TableDef): ResolvedName | null {
  const explicit = name.startsWith('data.');
  const columnName = explicit ? name.slice('data.'.length) : name;
  const column = table.columns.find((c) => c.name === columnName) ?? null;
  if (!explicit && isSystemField(name)) return { system: name, column };
  return column ? { system: null, column } : null;
}

/**
 * `fields`: comma-separated names (docs/contents.md#list-queries); absent means every field. Empty items are ignored
 * (`title,,slug,`), but a value that names nothing at all (blank) is refused. A name that is both
 * a system field and a column (say a slug column called `slug`) returns both. With no column
 * asked for, the rows carry no `data` at all. `data.*` asks for every column (of the caller's
 * view): the lean shape of a large page, `id` and `data` without the other system fields.
 */
export function parseFields(raw: string | undefined, table: TableDef): Projection {
  if (raw === undefined) return { all: true, system: [...OUTPUT_SYSTEM_FIELDS], columns: [...table.columns] };
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) throw invalidQuery('fields: names no field; leave the parameter out for every field');
  const system = new Set<OutputSystemField>();
  const columns = new Set<ColumnDef>();
  for (const name of names) {
    if (name.length > 200) throw invalidQuery(`fields: name "${name.slice(0, 40)}…" is too long`);
    if (name === EVERY_COLUMN) {
      for (const column of table.columns) columns.add(column);
      continue;
    }
    if (name === 'hasDraft') {
      system.add(name);
      continue;
    }
    // Output only: never a filter or sort key, so not a SystemField; a column of that name comes along, as for the others.
    if (name === 'version') system.add(name);
    const resolved = resolveName(name, table);
    if (!resolved && name === 'version') continue;
    if (!resolved) throw invalidQuery(`fields: unknown field "${name}"`);
    if (resolved.system && resolved.system !== 'id') system.add(resolved.system);
    if (resolved.column) columns.add(resolved.column);
  }
  return {
    all: false,
    system: OUTPUT_SYSTEM_FIELDS.filter((f) => system.has(f)),
    columns: table.columns.filter((c) => columns.has(c)),
  };
}
