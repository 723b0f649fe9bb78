import { sqlOn, transaction, type Sql } from '../../../db/sql.js';
import { forbidden, invalidTransition, notFound, validationError, type ErrorDetail } from '../../../errors/app-error.js';
import type { ProjectInfo } from '../../projects/project-directory.js';
import { isLocalized, slugColumnOf, type TableDef } from '../../tables/table-def.js';
import type { ContentsRow } from '../rows/row.js';
import type { UpdateContentsInput } from '../rows/rows.schema.js';
import { checkLookups, findRow, mapWriteFailures, type WriteScope } from '../rows/write.js';
import { draftToStored, readDraft } from './draft-data.js';
import { discardDraft, setDraft } from './drafts.sql.js';
import { isPlainObject } from '../../../shared/schemas.js';
import { validateData } from '../rows/validate.js';
import { assertVersion } from '../rows/precondition.js';

/*
 * Drafts of published rows (docs/contents.md#drafts-of-published-rows). A PUBLISHED row keeps serving its live values while an
 * editor prepares changes: `PUT` with `"draft": true` merges them into the row's pending draft,
 * `draft/publish` applies them as an update (rows/write.ts, source `draft`), and
 * `DELETE .../draft` drops them. The live row, and so lists, searches, caches, events and read
 * keys, never hold a draft value; callers that may see drafts see `hasDraft` on the row.
 */

/** Draft values only for callers that may see drafts (403): not read keys, nor roles without `drafts` (docs/roles.md#rules). */
export function assertMaySeeDrafts(drafts: boolean): void {
  if (!drafts) throw forbidden('This credential cannot read drafts');
}

/**
 * `PUT` with `"draft": true`: `data` merged into the pending draft (as PUT merges into the row),
 * the result validated as an update over the live values (422), references and files looked up.
 * Only a PUBLISHED row takes a draft (409 INVALID_TRANSITION otherwise); the status and
 * `publishAt` are the live row's and cannot change here (422). Unique values are checked when
 * the draft is published: until then the live row holds its values. Returns the row (its live values).
 */
export async function saveDraft(scope: WriteScope, input: UpdateContentsInput): Promise<ContentsRow> {
  return mapWriteFailures(scope.table, () =>
    transaction(scope.pool, async (sql) => {
      const current = await findRow(sql, scope.table, input.contentsId, true);
      // A draft save leaves the version as it is: this guards against live changes, not against another draft save.
      assertVersion(current, scope.expected);
      return saveDraftOver(sql, scope, input, current);
    }),
  );
}

/** `saveDraft` on `current`, the row read and locked in the caller's transaction. */
export async function saveDraftOver(sql: Sql, scope: WriteScope, input: UpdateContentsInput, current: ContentsRow): Promise<ContentsRow> {
  const { table, project } = scope;
  const details: ErrorDetail[] = [];
  for (const field of ['status', 'publishAt'] as const) {
    if (input[field] !== undefined) details.push({ field, message: 'cannot change in a draft: change it on the live row (without "draft")' });
  }
  const pending = mergeIntoDraft(table, project, await readDraft(sql, table, current), input.data ?? {});
  const validated = validateData(table, project, pending, current.data);
  details.push(...validated.details);
  await checkLookups(sql, validated, details);
  if (details.length > 0) throw validationError(details);
  if (current.status !== 'PUBLISHED') {
    throw invalidTransition(`draft: only PUBLISHED contents keep a draft; this row is ${current.status}, change it directly`);
  }
  // A draft proposes the update: checked as that update would be.
  await scope.rules?.check(sql, { before: current, after: { ...current, data: validated.data } });
  // Values as validated (normalized), so that the draft reads as the row will; null clears.
  const normalized = Object.fromEntries(Object.entries(pending).map(([name, value]) => [name, normalizedChange(table, project, name, value, validated.data[name])]));
  const [row] = await sql<ContentsRow>(setDraft(current.id, draftToStored(table, normalized)));
  return row;
}

/**
 * The pending changes once `data` is saved over them (`previous`: the draft so far). A column
 * given replaces its change, except a localized one, whose locales merge into the change as they
 * will merge into the row (docs/contents.md): the draft keeps only the locales it changes (a null
 * locale: removed on publish), so that it publishes over the live row's other locales as they are
 * then. A localized column cleared by the draft and then given locales: every other locale removed.
 */
function mergeIntoDraft(table: TableDef, project: ProjectInfo, previous: Record<string, unknown> | null, data: Record<string, unknown>): Record<string, unknown> {
  const pending = new Map(Object.entries(previous ?? {}));
  for (const [name, value] of Object.entries(data)) {
    const column = table.columns.find((c) => c.name === name);
    const before = pending.get(name);
    if (!column || !isLocalized(column) || value === null || before === undefined) {
      pending.set(name, value);
      continue;
    }
    const given = isPlainObject(value) ? value : { [project.defaultLocale]: value };
    const base = before === null ? Object.fromEntries(project.locales.map((locale) => [locale, null])) : isPlainObject(before) ? before : {};
    pending.set(name, { ...base, ...given });
  }
  return Object.fromEntries(pending);
}

/** A change of the draft as stored: the validated value (normalized), per locale for a localized column; null removes. */
function normalizedChange(table: TableDef, project: ProjectInfo, name: string, change: unknown, validated: unknown): unknown {
  if (change === null) return null;
  const column = table.columns.find((c) => c.name === name);
  if (!column || !isLocalized(column)) return validated ?? null;
  const byLocale = isPlainObject(validated) ? validated : {};
  // A plain value is the default locale's.
  const locales = isPlainObject(change) ? change : { [project.defaultLocale]: change };
  return Object.fromEntries(Object.entries(locales).map(([locale, value]) => [locale, value === null ? null : (byLocale[locale] ?? null)]));
}

/** `DELETE .../draft`: 404 for a row without a draft; the row locked while its version is checked. */
export async function discardDraftOf(scope: Pick<WriteScope, 'pool' | 'table' | 'rules' | 'expected'>, contentsId: string): Promise<void> {
  await transaction(scope.pool, async (sql) => {
    const row = await findRow(sql, scope.table, contentsId, true);
    assertVersion(row, scope.expected);
    // Dropping proposed changes needs the right to update the row.
    await scope.rules?.check(sql, { before: row, after: row });
    const [discarded] = await sql(discardDraft(row.id));
    if (!discarded) throw notFound('Draft');
  });
}

/**
 * `GET ...?version=draft`: the row with its pending draft applied, as publishing it would make
 * it (a slug the draft derives anew shown as derived); the row itself when it has no draft.
 */
export async function withDraftApplied(scope: { pool: WriteScope['pool']; table: TableDef; project: ProjectInfo }, row: ContentsRow): Promise<ContentsRow> {
  const draft = await readDraft(sqlOn(scope.pool), scope.table, row);
  if (!draft) return row;
  const { data } = validateData(scope.table, scope.project, draft, row.data);
  const slugColumn = slugColumnOf(scope.table);
  return { ...row, data, slug: slugColumn ? ((data[slugColumn.name] as string | undefined) ?? null) : null };
}
