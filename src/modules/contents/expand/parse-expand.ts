import { invalidQuery } from '../../../errors/app-error.js';
import type { ColumnDef, TableDef } from '../../tables/table-def.js';

/*
 * `expand` (docs/contents.md#expand): comma-separated paths of reference and file columns, dotted through
 * references up to depth 3 (`author,author.company,cover`), and the dotted names of `fields`
 * that select fields inside them (`fields=title,author.name`).
 *
 * In detail:
 * - A path expands every step on the way: `author.company` expands `author` too.
 * - With `fields`, an expanded column is returned whether or not `fields` names it, and so is
 *   every column an inner path goes through.
 * - A dotted name in `fields` must lie inside an expanded path (400 otherwise); inside a file,
 *   it names a field of the File object.
 * - At most 10 paths; `data.` before a name means the column, as in `fields`.
 */

export const MAX_EXPAND_DEPTH = 3;
const MAX_PATHS = 10;

export interface ExpandNode {
  /** The reference or file column, in the table the node hangs from. */
  column: ColumnDef;
  /** The referenced table; null for a file column. */
  table: TableDef | null;
  children: ExpandNode[];
  /** The fields asked for inside (`fields=author.name`); null for all of them. */
  fields: string[] | null;
}

export interface ExpandPlan {
  nodes: ExpandNode[];
  /** The list's own `fields`, with the expanded columns in it (undefined: every field). */
  fields: string | undefined;
}

/** Loads a table of the project by id (null when it is gone). */
export type TableLoader = (tableId: string) => Promise<TableDef | null>;

const splitNames = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const segmentsOf = (name: string) => (name.startsWith('data.') ? name.slice('data.'.length) : name).split('.');

/** Dotted `fields` names need an `expand` that covers them. */
function refuseDottedFields(rawFields: string | undefined): void {
  const dotted = rawFields === undefined ? undefined : splitNames(rawFields).find((name) => segmentsOf(name).length > 1);
  if (dotted) throw invalidQuery(`fields: "${dotted.slice(0, 100)}" names a field inside a reference; expand it too (expand=${segmentsOf(dotted)[0]})`);
}

async function childOf(parent: { table: TableDef; children: ExpandNode[] }, name: string, path: string, last: boolean, load: TableLoader): Promise<ExpandNode> {
  const existing = parent.children.find((node) => node.column.name === name);
  if (existing) return existing;
  const column = parent.table.columns.find((c) => c.name === name);
  if (!column || (column.type !== 'reference' && column.type !== 'file')) {
    throw invalidQuery(`expand: "${path}": ${column ? `${column.type} column "${name}" is not a reference or file column` : `unknown column "${name}"`}`);
  }
  if (column.type === 'file' && !last) throw invalidQuery(`expand: "${path}": file column "${name}" cannot be expanded further`);
  const table = column.type === 'reference' ? await load(column.settings.table!) : null;
  if (column.type === 'reference' && !table) throw invalidQuery(`expand: "${path}": the table of column "${name}" no longer exists`);
  const node: ExpandNode = { column, table, children: [], fields: null };
  parent.children.push(node);
  return node;
}

/** Parses `expand` and the dotted names of `fields` for a read of `table`; null without `expand`. */
export async function parseExpand(rawExpand: string | undefined, rawFields: string | undefined, table: TableDef, load: TableLoader): Promise<ExpandPlan | null> {
  if (rawExpand === undefined) {
    refuseDottedFields(rawFields);
    return null;
  }
  const paths = splitNames(rawExpand);
  if (paths.length === 0) throw invalidQuery('expand: names no column');
  if (paths.length > MAX_PATHS) throw invalidQuery(`expand: at most ${MAX_PATHS} paths`);
  const root = { table, children: [] as ExpandNode[], fields: null as string[] | null };
  for (const path of paths) {
    const segments = segmentsOf(path);
    if (segments.length > MAX_EXPAND_DEPTH) throw invalidQuery(`expand: "${path.slice(0, 100)}" is deeper than ${MAX_EXPAND_DEPTH}`);
    let parent: { table: TableDef | null; children: ExpandNode[] } = root;
    for (const [i, name] of segments.entries()) parent = await childOf(parent as { table: TableDef; children: ExpandNode[] }, name, path, i === segments.length - 1, load);
  }
  if (rawFields === undefined) return { nodes: root.children, fields: undefined };

  // Dotted names go to the node they lie in; the first segment (and every step) is returned.
  const top = new Set<string>();
  for (const name of splitNames(rawFields)) {
    const segments = segmentsOf(name);
    if (segments.length === 1) {
      top.add(name);
      continue;
    }
    let holder: { fields: string[] | null; children: ExpandNode[] } = root;
    for (const step of segments.slice(0, -1)) {
      const node = holder.children.find((n) => n.column.name === step);
      if (!node) throw invalidQuery(`fields: "${name.slice(0, 100)}" lies outside the expanded paths (expand=${segments.slice(0, -1).join('.')})`);
      holder = node;
    }
    (holder.fields ??= []).push(segments.at(-1)!);
  }
  // Each expanded column is returned where it hangs, whatever `fields` says.
  const include = (fields: string[] | null, children: ExpandNode[]) => {
    for (const child of children) {
      if (fields && !fields.includes(child.column.name)) fields.push(child.column.name);
      include(child.fields, child.children);
    }
  };
  const topFields = [...top];
  include(topFields, root.children);
  return { nodes: root.children, fields: topFields.join(',') };
}
