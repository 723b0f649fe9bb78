import type pg from 'pg';
import { conflict, notFound, validationError, type ErrorDetail } from '../../../errors/app-error.js';
import type { ProjectInfo } from '../../projects/project-directory.js';
import { sqlOn, transaction, type Sql } from '../../../db/sql.js';
import { emitEvents } from '../../events/outbox.js';
import { newEvent, type DomainEvent, type EventType, type PreviousFields } from '../../events/vocabulary.js';
import { outboxOfClient } from '../../../jobs/outbox.js';
import { isUuid, uuidv7 } from '../../../shared/ids.js';
import { slugColumnOf, type RowScope, type TableDef } from '../../tables/table-def.js';
import { recordChange, type CountChanges } from './counts.js';
import { insertRow, insertRowBatched } from './insert.js';
import { previousFields, toContentsOutput, toDate, type ContentsRow, type NewRow } from './row.js';
import { deleteRow, existingContents, filesOfColumnProject, lockRowsById, lockSlug, rowByIdOrSlug, updateRow } from './rows.sql.js';
import type { CreateContentsInput, UpdateContentsInput } from './rows.schema.js';
import { assertTransition, planStatus } from './status.js';
import { validateData, type ValidatedData } from './validate.js';
import { nextFreeSlug, storageLimitField, uniqueViolationField } from './uniqueness.js';
import { applyOnDelete } from '../references/references.js';
import { updateAction, type Actor } from '../revisions/actions.js';
import { revisionOf } from '../revisions/revisions.sql.js';
import { readDraft } from '../drafts/draft-data.js';
import { assertVersion, type VersionCondition } from './precondition.js';

export interface WriteScope {
  pool: pg.Pool;
  table: TableDef;
  project: ProjectInfo;
  /** The project's other tables, for rows a delete reaches through references (onDelete). */
  tables?: (tableId: string) => Promise<TableDef | null>;
  /** Who writes, for the revisions (docs/contents.md#revisions). */
  actor: Actor | null;
  /**
   * The caller's rules on rows (docs/roles.md#writes), checked in the write's transaction before
   * anything is written (403); absent, the caller's level decides alone.
   */
  rules?: RowRules;
  /**
   * The version the writer expects the row at (`If-Match`, `ifVersion`): checked once the row is
   * locked, so of two writers expecting the same version one writes and the other gets 412
   * (docs/contents.md#concurrent-edits). Absent: the last write wins.
   */
  expected?: VersionCondition;
  /**
   * The transaction to write in, instead of one of the write's own: a release applies all its
   * items in one (docs/releases.md), each checked as a single write is. `counts` and `events`
   * collect the write's count changes and events for the end of that transaction, which applies
   * them once for all its writes (counts.ts, CountChanges; one outbox insert, in write order).
   * `locked`: rows the transaction has locked and read already (lockRows), taken from there
   * instead of being read again, each once.
   */
  tx?: { sql: Sql; client: pg.PoolClient; counts: CountChanges; events: DomainEvent[]; locked?: Map<string, ContentsRow> };
  /** The release the write is part of, recorded on the row's revision. */
  releaseId?: string;
}

/** Runs `work` in the scope's transaction when it has one, else in a transaction of its own. */
const inScopeTransaction = <T>(scope: WriteScope, work: (sql: Sql, client: pg.PoolClient) => Promise<T>): Promise<T> =>
  scope.tx ? work(scope.tx.sql, scope.tx.client) : transaction(scope.pool, work);

/** A row change about to be made: `before` null for a create, `after` null for a delete. */
export interface PlannedChange {
  before: ContentsRow | null;
  after: ContentsRow | null;
  /** A draft publish: a publish although the status stays PUBLISHED. */
  publishes?: boolean;
}

export interface RowRules {
  /** Throws 403 unless the rules allow the change. */
  check(sql: Sql, change: PlannedChange): Promise<void>;
  /** Per change, null when the rules allow it, else the 403's message: one query for all of them at most. */
  checkMany(sql: Sql, changes: PlannedChange[]): Promise<(string | null)[]>;
  /** Whether the caller's updates of PUBLISHED rows become drafts (docs/roles.md#rules). */
  readonly writeAsDraft: boolean;
}

/**
 * The events of a row change; `false` entries are the ones that do not apply. An update's last
 * event carries what it replaced (`before`, or `previous` when only that is known), so that a
 * stream can tell a row leaving a subscriber's view (docs/realtime.md#who-sees-what).
 */
export function rowEvents(
  scope: WriteScope,
  row: ContentsRow,
  types: (EventType | false)[],
  { table = scope.table, before, previous }: { table?: TableDef; before?: ContentsRow; previous?: PreviousFields } = {},
): DomainEvent[] {
  const data = toContentsOutput(table, row);
  const events = types.filter((t): t is EventType => t !== false).map((t) => newEvent(t, scope.project.id, table.id, data));
  const replaced = before ? previousFields(toContentsOutput(table, before), data) : previous;
  if (replaced && events.length > 0) events[events.length - 1].previous = replaced;
  return events;
}

/** How often a derived slug is recomputed when a concurrent writer takes it first. */
const SLUG_ATTEMPTS = 5;

/**
 * References and files must exist in the project (422). In the write's transaction,
 * `lock` keeps the referenced rows from being deleted until it commits (docs/contents.md#references).
 */
export async function checkLookups(sql: Sql, validated: Pick<ValidatedData, 'references' | 'files'>, details: ErrorDetail[], lock = false): Promise<void> {
  for (const ref of validated.references) {
    const found = await sql<{ id: string }>(existingContents(ref.tableId, ref.ids, lock));
    const missing = ref.ids.filter((id) => !found.some((f) => f.id === id));
    if (missing.length > 0) details.push({ field: `data.${ref.column.name}`, message: `unknown contents id(s): ${missing.join(', ')}` });
  }
  for (const file of validated.files) {
    // Files of the project that owns the column's table.
    const found = await sql<{ id: string }>(filesOfColumnProject(file.column.id, file.ids.filter(isUuid)));
    const missing = file.ids.filter((id) => !found.some((f) => f.id === id));
    if (missing.length > 0) details.push({ field: `data.${file.column.name}`, message: `unknown file id(s): ${missing.join(', ')}` });
  }
}

/** Finds a row by id or, for anything that is not a UUID, by slug; among `rows` when given (else 404). */
export async function findRow(sql: Sql, table: TableDef, contentsId: string, forUpdate = false, rows?: RowScope): Promise<ContentsRow> {
  const byId = isUuid(contentsId);
  if (!byId && !slugColumnOf(table)) throw notFound('Contents');
  const [row] = await sql<ContentsRow>(rowByIdOrSlug(table.id, byId ? contentsId.toLowerCase() : contentsId, byId, forUpdate, rows?.sql));
  if (!row) throw notFound('Contents');
  return row;
}

/**
 * Locks rows by id for the rest of the transaction, in id order, and answers them by id: a
 * transaction writing many rows (a release) reads them in one statement instead of one each,
 * and takes their locks in one order. Ids of no row are left out.
 */
export async function lockRows(sql: Sql, ids: string[]): Promise<Map<string, ContentsRow>> {
  const rows = await sql<ContentsRow>(lockRowsById(ids));
  return new Map(rows.map((row) => [row.id, row]));
}

/** The row as the scope's transaction locked it (lockRows), once; undefined when it did not, or not in the table. */
function lockedRow(scope: WriteScope, contentsId: string): ContentsRow | undefined {
  const row = scope.tx?.locked?.get(contentsId);
  if (!row || row.table_id !== scope.table.id) return undefined;
  scope.tx!.locked!.delete(contentsId);
  return row;
}

/**
 * Runs `write`, turning unique violations into 409 naming the field (docs/contents.md#contents), and a value the
 * database cannot hold into 422 naming it.
 */
export async function mapWriteFailures<T>(table: TableDef, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const field = uniqueViolationField(table, error);
    if (field) throw conflict(`${field}: this value already exists in another row`);
    const tooLarge = storageLimitField(table, error);
    if (tooLarge) throw validationError([{ field: tooLarge, message: 'is too large to store' }]);
    throw error;
  }
}

export async function createContents(scope: WriteScope, input: CreateContentsInput): Promise<ContentsRow> {
  const { pool, table, project } = scope;
  const sql = sqlOn(pool);
  const validated = validateData(table, project, input.data, null);
  const details = [...validated.details];
  const plan = planStatus(null, input, table.defaultStatus, details);

  const slugColumn = slugColumnOf(table);
  // Omitted or null: the slug is derived from its source (validateData), and must then be made free.
  const derivedSlug = slugColumn !== undefined && input.data[slugColumn.name] == null && validated.data[slugColumn.name] !== undefined;
  const newRow = (data: Record<string, unknown>): NewRow => {
    const now = new Date();
    const row: ContentsRow = {
      id: uuidv7(now.getTime()),
      table_id: table.id,
      status: plan.status,
      slug: slugColumn ? ((data[slugColumn.name] as string | undefined) ?? null) : null,
      data,
      created_at: now,
      updated_at: now,
      published_at: plan.publishes ? now : null,
      publish_at: plan.publishAt,
      version: 1,
    };
    return { row, projectId: project.id, events: rowEvents(scope, row, ['contents.created', plan.publishes && 'contents.published']), actor: scope.actor };
  };
  if (!derivedSlug && validated.references.length === 0) {
    await checkLookups(sql, validated, details);
    if (details.length > 0) throw validationError(details);
    const created = newRow(validated.data);
    // The rules read only the values given (no reference is set here): checked before the batch.
    await scope.rules?.check(sql, { before: null, after: created.row });
    // A taken unique value (null) or a failed batch: alone, the insert names what went wrong.
    const inserted = await insertRowBatched(pool, created).catch(() => null);
    return inserted ?? mapWriteFailures(table, () => insertRow(pool, newRow(validated.data)));
  }

  // Checked and inserted in one transaction: the referenced rows stay locked (`for key share`)
  // until the row is in, so none of them is deleted in between (docs/contents.md#references).
  const insertChecked = async (tx: Sql, client: pg.PoolClient, data: Record<string, unknown>) => {
    await checkLookups(tx, validated, details, true);
    if (details.length > 0) throw validationError(details);
    const created = newRow(data);
    await scope.rules?.check(tx, { before: null, after: created.row });
    return insertRow(client, created);
  };
  if (!derivedSlug) return mapWriteFailures(table, () => transaction(pool, (tx, client) => insertChecked(tx, client, validated.data)));

  const base = validated.data[slugColumn.name] as string;
  for (let attempt = 1; ; attempt++) {
    try {
      return await mapWriteFailures(table, () =>
        transaction(pool, async (tx, client) => {
          // Writers deriving the same slug queue here, so each one sees the slugs the others took.
          await tx(lockSlug(table.id, base));
          return insertChecked(tx, client, { ...validated.data, [slugColumn.name]: await nextFreeSlug(tx, table.id, base) });
        }),
      );
    } catch (error) {
      // A writer that gave this slug explicitly took it between our lookup and our insert: try the next.
      const isSlugRace = (error as { message?: string }).message?.startsWith(`data.${slugColumn.name}:`);
      if (!isSlugRace || attempt >= SLUG_ATTEMPTS) throw error;
    }
  }
}

/** The data of a row's revision, its since-deleted columns left out; 404 when there is no such version. */
export async function revisionData(sql: Sql, table: TableDef, rowId: string, version: number): Promise<Record<string, unknown>> {
  const [revision] = await sql<{ data: Record<string, unknown> }>(revisionOf(rowId, version));
  if (!revision) throw notFound('Revision');
  const live = new Set(table.columns.map((c) => c.name));
  return Object.fromEntries(Object.entries(revision.data).filter(([name]) => live.has(name)));
}

/** What an update applies: the body's `data` (PUT), a revision's data (restore) or the row's pending draft (draft publish). */
export type UpdateSource =
  /** `proposal`: how a caller whose updates of PUBLISHED rows become drafts saves one (docs/roles.md#rules), under the row's lock. */
  | { kind: 'body'; proposal?: (sql: Sql, current: ContentsRow) => Promise<ContentsRow> }
  | { kind: 'revision'; version: number }
  | { kind: 'draft' };

/**
 * The data an update merges into the row, over `existing` (null: it replaces the row's data). A
 * draft publish with no pending draft is 404.
 */
async function updateInput(sql: Sql, table: TableDef, current: ContentsRow, input: UpdateContentsInput, source: UpdateSource) {
  switch (source.kind) {
    case 'body':
      return { data: input.data ?? {}, existing: current.data };
    case 'revision':
      return { data: await revisionData(sql, table, current.id, source.version), existing: null };
    case 'draft': {
      const draft = await readDraft(sql, table, current);
      if (!draft) throw notFound('Draft');
      return { data: draft, existing: current.data };
    }
  }
}

/**
 * PUT (docs/contents.md#contents): `data` merged into the row's, the status moved as asked. From a revision, the
 * row takes that revision's data instead, its status unchanged; from the pending draft, the row
 * takes the draft's changes and is published (docs/contents.md#drafts-of-published-rows). Each is validated and unique-checked as
 * an update is.
 */
export async function updateContents(scope: WriteScope, input: UpdateContentsInput, source: UpdateSource = { kind: 'body' }): Promise<ContentsRow> {
  const { table, project } = scope;
  return mapWriteFailures(table, () =>
    inScopeTransaction(scope, async (sql, client) => {
      const current = lockedRow(scope, input.contentsId) ?? (await findRow(sql, table, input.contentsId, true));
      assertVersion(current, scope.expected);
      // Decided on the locked row: a row published meanwhile still gets a draft, never a live change.
      if (source.kind === 'body' && source.proposal && scope.rules?.writeAsDraft && current.status === 'PUBLISHED') return source.proposal(sql, current);
      const given = await updateInput(sql, table, current, input, source);
      const validated = validateData(table, project, given.data, given.existing);
      const details = [...validated.details];
      const publishAt = current.publish_at === null ? null : toDate(current.publish_at);
      const requested = source.kind === 'draft' ? { status: 'PUBLISHED' as const } : input;
      const plan = planStatus({ status: current.status, publishAt }, requested, table.defaultStatus, details);
      await checkLookups(sql, validated, details, true);
      if (details.length > 0) throw validationError(details);
      assertTransition(current.status, plan.status);
      const slugColumn = slugColumnOf(table);
      if (source.kind !== 'revision' && slugColumn && given.data[slugColumn.name] == null && validated.data[slugColumn.name] !== undefined) {
        // A slug derived by this write (a row from before the slug column, or a slug set to null):
        // take a free one, as on create, rather than clash with another row's.
        const derived = validated.data[slugColumn.name] as string;
        if (derived !== current.slug) validated.data[slugColumn.name] = await nextFreeSlug(sql, table.id, derived);
      }
      const slug = slugColumn ? ((validated.data[slugColumn.name] as string | undefined) ?? null) : null;
      // A published draft is a publish even of a row that was PUBLISHED already (docs/contents.md#drafts-of-published-rows).
      const publishes = plan.publishes || source.kind === 'draft';
      const after = { ...current, data: validated.data, status: plan.status, slug, publish_at: plan.publishAt };
      await scope.rules?.check(sql, { before: current, after, publishes: source.kind === 'draft' });
      const action = source.kind === 'revision' ? 'restored' : source.kind === 'draft' ? 'draftPublished' : updateAction(current.status, plan.status);
      const [row] = await sql<ContentsRow>(
        updateRow(current.id, validated.data, plan.status, slug, plan.publishAt, publishes, { action, actor: scope.actor, releaseId: scope.releaseId }, source.kind === 'draft'),
      );
      if (scope.tx) scope.tx.counts.add(table.id, current.status, plan.status);
      else await recordChange(sql, table.id, current.status, plan.status);
      const types = ['contents.updated', publishes && 'contents.published', plan.unpublishes && 'contents.unpublished'] as const;
      const events = rowEvents(scope, row, [...types], { before: current });
      if (scope.tx) scope.tx.events.push(...events);
      else await emitEvents(outboxOfClient(client), events);
      return row;
    }),
  );
}

/**
 * Deletes a row, and applies `onDelete` of the reference columns that point at it (docs/contents.md#references):
 * cleared references (`contents.updated`), cascaded deletes (`contents.deleted`, totals kept),
 * or a 409 that leaves everything as it was, all in the delete's transaction.
 */
export async function deleteContents(scope: WriteScope, contentsId: string): Promise<ContentsRow> {
  const { pool, table } = scope;
  return transaction(pool, async (sql, client) => {
    const row = await findRow(sql, table, contentsId, true);
    assertVersion(row, scope.expected);
    await scope.rules?.check(sql, { before: row, after: null });
    await sql(deleteRow(row.id));
    const effects = await applyOnDelete(sql, scope.project.id, table.id, [row.id], scope.actor);
    const deleted = [row, ...effects.deleted];
    // One counter change per table and status, in one order: concurrent deletes cannot deadlock on them.
    const groups = Map.groupBy(deleted, (r) => `${r.table_id} ${r.status}`);
    for (const key of [...groups.keys()].sort()) {
      const [first, ...rest] = groups.get(key)!;
      await recordChange(sql, first.table_id, first.status, null, rest.length + 1);
    }
    const events = [
      ...(await rowsEvents(scope, deleted, 'contents.deleted')),
      ...(await rowsEvents(scope, effects.updated, 'contents.updated', effects.previous)),
    ];
    await emitEvents(outboxOfClient(client), events);
    return row;
  });
}

/** One event per row, each with its own table's view of it (and what an update replaced, by row id). */
async function rowsEvents(scope: WriteScope, rows: ContentsRow[], type: EventType, previous?: Map<string, PreviousFields>): Promise<DomainEvent[]> {
  const tables = new Map<string, TableDef>([[scope.table.id, scope.table]]);
  const events: DomainEvent[] = [];
  for (const row of rows) {
    let table = tables.get(row.table_id);
    if (!table) {
      const found = await scope.tables?.(row.table_id);
      if (!found) throw new Error(`table ${row.table_id} of a referencing row is unknown`);
      tables.set(row.table_id, (table = found));
    }
    events.push(...rowEvents(scope, row, [type], { table, previous: previous?.get(row.id) }));
  }
  return events;
}
