import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sql } from '../../../db/sql.js';
import { invalidQuery } from '../../../errors/app-error.js';
import { isUuid } from '../../../shared/ids.js';
import { findFiles, toFileOutput } from '../../files/file.service.js';
import type { FileOutput } from '../../files/file.schema.js';
import { isMultiple, type TableDef } from '../../tables/table-def.js';
import { visibleAmong } from '../rows/rows.sql.js';
import type { RowImage } from '../list-cache/change-log.js';
import type { RowCache } from '../list-cache/row-cache.js';
import { wireInstant } from '../list-cache/change-log.js';
import { toContentsOutput } from '../rows/row.js';
import { parseFields, toListItem, type ListRow, type Projection } from '../../query/index.js';
import type { ExpandNode } from './parse-expand.js';

/** What an expansion reads with, and for whom. */
export interface ExpandContext {
  sql: Sql;
  em: EntityManager;
  rows: RowCache;
  /** Brings the cached rows of a table up to date with its committed changes (list-cache). */
  sync: (tableId: string) => Promise<unknown>;
  projectId: string;
  /** Whether the caller may see `hasDraft`. Which referenced rows it sees is each node table's `rows` (others expand to null, left out of arrays). */
  drafts: boolean;
  /**
   * Whether the caller sees `hasDraft` in a referenced table, when that can differ from table to
   * table (a custom role's rules, docs/roles.md#rules): an expanded row comes as reading it answers.
   */
  readsDrafts?: (tableId: string) => Promise<boolean>;
  locale: string | null;
  defaultLocale: string;
}

type Item = { data?: Record<string, unknown> | null };

/** The ids a column holds in these items (a single id or an array of them), in order, once each. */
function idsOf(items: Item[], column: string): string[] {
  const ids = new Set<string>();
  for (const item of items) {
    const value = item.data?.[column];
    for (const id of Array.isArray(value) ? value : [value]) if (typeof id === 'string' && isUuid(id)) ids.add(id.toLowerCase());
  }
  return [...ids];
}

/** A referenced row as a read of it answers (same `locale`), with only the fields asked for. */
function shapeRow(node: ExpandNode, image: RowImage, projection: Projection | null, ctx: ExpandContext, drafts: boolean): Record<string, unknown> {
  const row = {
    id: image.id,
    table_id: node.table!.id,
    status: image.status,
    slug: image.slug,
    data: image.data,
    created_at: wireInstant(image.createdAt)!,
    updated_at: wireInstant(image.updatedAt)!,
    published_at: wireInstant(image.publishedAt),
    publish_at: wireInstant(image.publishAt),
    version: image.version,
    has_draft: image.hasDraft ?? false,
  } as Parameters<typeof toContentsOutput>[1];
  const locale = ctx.locale ? { locale: ctx.locale, defaultLocale: ctx.defaultLocale } : {};
  const output = toContentsOutput(node.table!, row, { ...locale, hideDrafts: !drafts });
  return projection ? toListItem(output as ListRow, { projection }) : output;
}

function shapeFile(node: ExpandNode, file: FileOutput): Record<string, unknown> {
  if (node.fields === null) return file;
  const out: Record<string, unknown> = { id: file.id };
  for (const name of node.fields) {
    if (!Object.hasOwn(file, name)) throw invalidQuery(`fields: "${node.column.name}.${name}": a file has no field "${name}"`);
    out[name] = file[name as keyof FileOutput];
  }
  return out;
}

/** The expanded value of each id of a node (absent: not visible or gone), one query at most. */
async function load(node: ExpandNode, ids: string[], ctx: ExpandContext): Promise<Map<string, Record<string, unknown>>> {
  const shaped = new Map<string, Record<string, unknown>>();
  if (ids.length === 0) return shaped;
  if (!node.table) {
    for (const file of await findFiles(ctx.em, ctx.projectId, ids)) shaped.set(file.id, shapeFile(node, toFileOutput(file)));
    return shaped;
  }
  const projection = node.fields && parseFields(node.fields.join(','), node.table);
  await ctx.sync(node.table.id);
  const images = [...(await ctx.rows.get(ctx.sql, node.table.id, ids))].filter((entry): entry is [string, RowImage] => entry[1] !== null);
  const visible = await visibleIds(node.table, images, ctx.sql);
  const drafts = ctx.readsDrafts ? await ctx.readsDrafts(node.table.id) : ctx.drafts;
  for (const [id, image] of images) if (visible.has(id)) shaped.set(id, shapeRow(node, image, projection, ctx, drafts));
  return shaped;
}

/** The rows among `images` inside the view's `rows`: told in JavaScript, or by the database where it cannot be. */
async function visibleIds(view: TableDef, images: [string, RowImage][], sql: Sql): Promise<Set<string>> {
  const { rows } = view;
  if (!rows) return new Set(images.map(([id]) => id));
  const verdicts = images.map(([id, image]) => [id, rows.matches(image)] as const);
  const visible = new Set(verdicts.filter(([, v]) => v === true).map(([id]) => id));
  const undecided = verdicts.filter(([, v]) => v === null).map(([id]) => id);
  if (undecided.length > 0) for (const { id } of await sql<{ id: string }>(visibleAmong(view, undecided))) visible.add(id);
  return visible;
}

/**
 * Items with their expanded columns replaced by the referenced rows and files (docs/contents.md#expand), level
 * by level: one load per expanded path, whatever the number of items. The items given are not
 * changed (they may be cached): the answer holds copies.
 */
export async function expandItems<T extends Item>(items: T[], nodes: ExpandNode[], ctx: ExpandContext): Promise<T[]> {
  const copies = items.map((item) => (item.data ? { ...item, data: { ...item.data } } : item));
  await Promise.all(
    nodes.map(async (node) => {
      const name = node.column.name;
      const byId = await load(node, idsOf(copies, name), ctx);
      const expanded: Record<string, unknown>[] = [];
      for (const item of copies) {
        if (!item.data || !Object.hasOwn(item.data, name)) continue;
        const value = item.data[name];
        const pick = (id: unknown) => (typeof id === 'string' ? byId.get(id.toLowerCase()) : undefined);
        if (isMultiple(node.column)) {
          const list = (Array.isArray(value) ? value : []).map(pick).filter((v) => v !== undefined);
          item.data[name] = list;
          expanded.push(...list);
        } else {
          const one = pick(value) ?? null;
          item.data[name] = one;
          if (one) expanded.push(one);
        }
      }
      if (node.children.length > 0 && expanded.length > 0) {
        const deeper = await expandItems(expanded, node.children, ctx);
        // In place: the objects placed above are this call's own.
        deeper.forEach((copy, i) => Object.assign(expanded[i], copy));
      }
    }),
  );
  return copies as T[];
}
