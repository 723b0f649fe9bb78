import { transaction, type Sql } from '../../../db/sql.js';
import { invalidTransition, notFound, validationError } from '../../../errors/app-error.js';
import { paginationOf, wantsCount, type PageParams } from '../../../shared/pagination.js';
import type { ContentStatus } from '../../tables/table.entity.js';
import type { TableDef } from '../../tables/table-def.js';
import { visibleData, type ContentsRow } from '../rows/row.js';
import { isUuid } from '../../../shared/ids.js';
import { checkLookups, findRow, mapWriteFailures, revisionData, type WriteScope } from '../rows/write.js';
import { draftToStored } from '../drafts/draft-data.js';
import { setDraft } from '../drafts/drafts.sql.js';
import { isLocalized } from '../../tables/table-def.js';
import { validateData } from '../rows/validate.js';
import { assertVersion } from '../rows/precondition.js';
import { purgeOldRevisions, revisionHead, revisionOf, revisionsOf, type RevisionRow } from './revisions.sql.js';

const iso = (t: Date | string) => (typeof t === 'string' ? t : t.toISOString());

function toRevisionOutput(table: TableDef, row: RevisionRow) {
  return {
    version: row.version,
    action: row.action,
    status: row.status as ContentStatus,
    data: visibleData(table, row.data),
    actor: row.actor_type && row.actor_id ? { type: row.actor_type, id: row.actor_id } : null,
    releaseId: row.release_id ?? null,
    createdAt: iso(row.created_at),
  };
}

/**
 * Deletes the revisions beyond the newest `keep` of each row that got one since `since`
 * (REVISIONS_PER_ROW, docs/contents.md#revisions; run by the `revisions` worker). Answers how many went.
 */
export async function purgeRevisions(sql: Sql, keep: number, since: Date): Promise<number> {
  const [{ deleted }] = await sql<{ deleted: number }>(purgeOldRevisions(keep, since));
  return deleted;
}

/**
 * One page of a row's revisions, newest first. By id, the page and the head (does the row exist
 * in this table, how many revisions) are read at once: a page of another table's row is read
 * for nothing and never answered.
 */
export async function listRevisions(sql: Sql, table: TableDef, contentsId: string, params: PageParams) {
  const rowId = isUuid(contentsId) ? contentsId.toLowerCase() : (await findRow(sql, table, contentsId)).id;
  const [rows, [head]] = await Promise.all([
    sql<RevisionRow>(revisionsOf(rowId, params.size + 1, (params.page - 1) * params.size)),
    sql<{ found: boolean; total: number }>(revisionHead(rowId, table.id)),
  ]);
  if (!head.found) throw notFound('Contents');
  const total = wantsCount(params) ? head.total : null;
  return { list: rows.slice(0, params.size).map((row) => toRevisionOutput(table, row)), pagination: paginationOf(params, rows.length, total) };
}

export async function getRevision(sql: Sql, table: TableDef, rowId: string, version: number) {
  const [row] = await sql<RevisionRow>(revisionOf(rowId, version));
  if (!row) throw notFound('Revision');
  return toRevisionOutput(table, row);
}

/**
 * Restore with `"draft": true` (docs/contents.md, Revisions): the revision's data becomes the
 * pending draft of a PUBLISHED row, replacing any draft in progress, while the live row stays as
 * it is. Checked as a draft save is (422, then 409 INVALID_TRANSITION for a row that is not
 * PUBLISHED) and, like one, it records no revision and fires no event: publishing the draft does.
 */
export async function restoreIntoDraft(scope: WriteScope, contentsId: string, version: number): Promise<ContentsRow> {
  const { pool, table, project } = scope;
  return mapWriteFailures(table, () =>
    transaction(pool, async (sql) => {
      const current = await findRow(sql, table, contentsId, true);
      assertVersion(current, scope.expected);
      // The data a restore onto the live row would write (it replaces the row's data, not merged).
      const validated = validateData(table, project, await revisionData(sql, table, current.id, version), null);
      const details = [...validated.details];
      await checkLookups(sql, validated, details);
      if (details.length > 0) throw validationError(details);
      if (current.status !== 'PUBLISHED') {
        throw invalidTransition(`draft: only PUBLISHED contents keep a draft; this row is ${current.status}, restore it without "draft"`);
      }
      await scope.rules?.check(sql, { before: current, after: { ...current, data: validated.data } });
      // A draft is applied over the live values: every column is named (null clears it), and a
      // localized value names every locale (null drops it), so the draft reads as the revision.
      const draft = Object.fromEntries(
        table.columns.map((column) => {
          const value = validated.data[column.name] ?? null;
          if (value === null || !isLocalized(column)) return [column.name, value];
          return [column.name, { ...Object.fromEntries(project.locales.map((locale) => [locale, null])), ...(value as Record<string, unknown>) }];
        }),
      );
      const [row] = await sql<ContentsRow>(setDraft(current.id, draftToStored(table, draft)));
      return row;
    }),
  );
}
