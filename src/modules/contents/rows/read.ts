import { sqlOn, type Sql } from '../../../db/sql.js';
import { invalidQuery, notFound } from '../../../errors/app-error.js';
import type { ProjectInfo } from '../../projects/project-directory.js';
import { findRow } from './write.js';
import { toContentsOutput, type ContentsRow } from './row.js';
import type { TableDef } from '../../tables/table-def.js';
import type { ContentsListItem } from './rows.schema.js';
import { expandContext, type ListScope } from './list.js';
import { expandItems } from '../expand/expand.js';
import { parseExpand } from '../expand/parse-expand.js';
import { parseFields, toListItem, type ListRow } from '../../query/index.js';
import { assertMaySeeDrafts, withDraftApplied } from '../drafts/drafts.js';
import { draftEtagOf, etagOf } from './precondition.js';
import { isUuid } from '../../../shared/ids.js';
import { wireInstant, type RowImage } from '../list-cache/change-log.js';

export type ReadScope = ListScope;

export function checkLocale(project: ProjectInfo, locale: string | undefined): void {
  if (locale !== undefined && !project.locales.includes(locale)) {
    throw invalidQuery(`locale: "${locale}" is not a project locale (${project.locales.join(', ')})`);
  }
}

/**
 * A row by id or slug as the caller may see it: a row outside the view's `rows` (a DRAFT row for
 * a read key, a row outside a role's rules) is 404, as if it did not exist.
 */
export async function findVisibleRow(sql: Sql, view: TableDef, contentsId: string): Promise<ContentsRow> {
  const { rows } = view;
  if (rows && !rows.timestamps) {
    // The row by its prepared look-up, then the condition in JavaScript; the database only when that cannot tell.
    const row = await findRow(sql, view, contentsId);
    const verdict = rows.matches(row);
    if (verdict === true) return row;
    if (verdict === false) throw notFound('Contents');
  }
  return findRow(sql, view, contentsId, false, rows);
}

/**
 * A row by id as the caller may see it (findVisibleRow), from the process's row images
 * (list-cache/row-cache.ts) once the table's changes committed before the request are read: that
 * read is shared by the list and single reads of the table under way, so a warm read by id
 * usually waits on another request's round trip instead of making its own
 * (docs/performance.md#single-reads-and-large-pages). A slug, an image this cannot shape, or a
 * row condition JavaScript cannot tell go to the database, as before.
 */
export async function findVisibleCachedRow(scope: ReadScope, contentsId: string): Promise<ContentsRow> {
  const sql = sqlOn(scope.pool);
  const view = scope.table;
  if (!isUuid(contentsId)) return findVisibleRow(sql, view, contentsId);
  const id = contentsId.toLowerCase();
  await scope.cache.syncTable(scope.pool, view.id);
  const image = (await scope.cache.rows.get(sql, view.id, [id])).get(id);
  if (!image) throw notFound('Contents');
  const row = rowOfImage(view.id, image);
  const verdict = view.rows ? view.rows.matches(image) : true;
  if (row && verdict === true) return row;
  if (verdict === false) throw notFound('Contents');
  return findVisibleRow(sql, view, id);
}

/** The row a select of it returns (CONTENTS_COLUMNS through the plain pool), or null for an image missing a field. */
export function rowOfImage(tableId: string, image: RowImage): ContentsRow | null {
  const [createdAt, updatedAt, publishedAt, publishAt] = [image.createdAt, image.updatedAt, image.publishedAt, image.publishAt].map(wireInstant);
  if (createdAt == null || updatedAt == null || publishedAt === undefined || publishAt === undefined || image.version === undefined) return null;
  return {
    id: image.id,
    table_id: tableId,
    status: image.status as ContentsRow['status'],
    slug: image.slug,
    data: image.data,
    created_at: createdAt,
    updated_at: updatedAt,
    published_at: publishedAt,
    publish_at: publishAt,
    version: image.version,
    has_draft: image.hasDraft ?? false,
  };
}

/**
 * One row by id or slug (see findVisibleCachedRow); `fields` and `expand` as on lists (docs/contents.md,
 * the list engine's parsing and projection); `version=draft` with its pending draft applied. With
 * its entity tag (docs/contents.md#concurrent-edits), whatever `fields` leaves out.
 */
export async function getContents(
  scope: ReadScope,
  input: { contentsId: string; locale?: string; fields?: string; expand?: string; version?: 'published' | 'draft' },
): Promise<{ item: ContentsListItem; etag: string }> {
  const { contentsId, locale } = input;
  if (input.version === 'draft') assertMaySeeDrafts(scope.drafts);
  const found = await findVisibleCachedRow(scope, contentsId);
  checkLocale(scope.project, locale);
  const expand = await parseExpand(input.expand, input.fields, scope.table, scope.tables);
  // With `expand`, the row's own names (the expanded columns added); the dotted ones are the plan's.
  const fields = expand ? expand.fields : input.fields;
  const projection = fields === undefined ? null : parseFields(fields, scope.table);
  const row = input.version === 'draft' ? await withDraftApplied(scope, found) : found;
  const whole = toContentsOutput(scope.table, row, { locale, defaultLocale: scope.project.defaultLocale, hideDrafts: !scope.drafts });
  // toContentsOutput leaves hasDraft out for callers without drafts, so the projection cannot bring it back.
  const output = projection ? (toListItem(whole as ListRow, { projection }) as ContentsListItem) : whole;
  const etag = input.version === 'draft' ? draftEtagOf(row) : etagOf(row);
  if (!expand) return { item: output, etag };
  const [expanded] = await expandItems([output], expand.nodes, expandContext(scope, locale ?? null));
  return { item: expanded, etag };
}
