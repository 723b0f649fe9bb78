import type pg from 'pg';
import { AppError, forbidden, notFound, validationError, type ErrorDetail } from '../../../errors/app-error.js';
import { savepoint, type Sql } from '../../../db/sql.js';
import type { DomainEvent } from '../../events/vocabulary.js';
import { isUuid } from '../../../shared/ids.js';
import { slugColumnOf } from '../../tables/table-def.js';
import type { CountChanges } from './counts.js';
import { toDate, type ContentsRow } from './row.js';
import { existingContents, filesOfColumnProject, updateRows, type RowUpdate } from './rows.sql.js';
import type { UpdateContentsInput } from './rows.schema.js';
import { assertTransition, planStatus, type StatusPlan } from './status.js';
import { validateData, type ValidatedData } from './validate.js';
import { nextFreeSlug, storageLimitField, uniqueViolationField } from './uniqueness.js';
import { assertVersion } from './precondition.js';
import { rowEvents, updateContents, type PlannedChange, type WriteScope } from './write.js';
import { updateAction } from '../revisions/actions.js';
import { draftsOf } from '../drafts/drafts.sql.js';
import { draftFromStored } from '../drafts/draft-data.js';
import { betweenSlices, letOthersRun, mapInSlices } from '../../../shared/slices.js';

/*
 * Many rows updated at once in one transaction (a release, docs/releases.md#publishing), each
 * checked as updateContents checks a single write: row found, version, pending draft,
 * validation, references and files, status transition, rules, unique values. The checks are
 * told in JavaScript, the lookups asked once per referenced table or file column, the rules once
 * per table (WriteRules.checkMany), and the rows written with their revisions by one statement
 * per ROWS_PER_STATEMENT rows: the number of statements grows by one per slice only. A unique
 * value taken, which only the database tells, rolls the slices back and the rows are written one
 * by one instead, so that the failure names its row.
 */

/**
 * Rows written per statement, all in the same transaction. One statement for 1,000 rows answered
 * them all at once, parsed in one go on the event loop that also serves every other request;
 * slices of 250 come back one after the other, with other requests' callbacks run between them.
 * The server's work is the same, and 10 or 100 updates still take a single statement.
 */
export const ROWS_PER_STATEMENT = 250;

/** One row's update: the status asked (`input`), or its pending draft published. */
export interface ManyUpdate {
  tableId: string;
  contentsId: string;
  input: Partial<UpdateContentsInput>;
  source: 'body' | 'draft';
}

/** The transaction the updates are made in (WriteScope.tx, with the rows it has locked). */
export interface ManyTx {
  sql: Sql;
  client: pg.PoolClient;
  counts: CountChanges;
  events: DomainEvent[];
  locked: Map<string, ContentsRow>;
}

/** The first update that fails (in the updates' order) and what a single write of it would answer. */
export class UpdateFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super(`update ${index} failed`);
  }
}

/** An update checked so far: what it writes, or why not (`failure`, the first the single write would meet). */
interface Planned {
  scope?: WriteScope;
  current?: ContentsRow;
  validated?: ValidatedData;
  plan?: StatusPlan;
  details: ErrorDetail[];
  after?: ContentsRow;
  failure?: unknown;
}

/**
 * Applies every update or none: throws UpdateFailure for the first that fails. The rows' count
 * changes go to `tx.counts` and their events to `tx.events`, in the updates' order, as
 * updateContents does with a WriteScope.tx. `scopeOf`: the write scope of a table.
 *
 * With `partial`, the updates that pass are applied and those that fail are answered instead,
 * by index, each with the error its single write would give (a bulk status change,
 * bulk-status.ts): nothing is thrown for them.
 */
export async function updateMany(
  scopeOf: (tableId: string) => Promise<WriteScope>,
  tx: ManyTx,
  updates: ManyUpdate[],
  releaseId?: string,
  options: { partial?: boolean } = {},
): Promise<Map<number, unknown>> {
  const { sql } = tx;
  const scopes = new Map<string, Promise<WriteScope>>();
  const planned: Planned[] = [];
  const drafts = new Map<string, Record<string, unknown>>();
  const wanted = updates.filter((u) => u.source === 'draft' && tx.locked.get(u.contentsId)?.has_draft).map((u) => u.contentsId);
  if (wanted.length > 0) for (const d of await sql<{ id: string; draft: Record<string, unknown> }>(draftsOf(wanted))) drafts.set(d.id, d.draft);

  for (const [i, update] of updates.entries()) {
    await betweenSlices(i);
    const p: Planned = { details: [] };
    planned.push(p);
    try {
      if (!scopes.has(update.tableId)) scopes.set(update.tableId, scopeOf(update.tableId));
      const scope = (p.scope = await scopes.get(update.tableId)!);
      const { table, project } = scope;
      const current = tx.locked.get(update.contentsId);
      if (!current || current.table_id !== table.id) throw notFound('Contents');
      p.current = current;
      assertVersion(current, scope.expected);
      const stored = update.source === 'draft' ? drafts.get(current.id) : undefined;
      if (update.source === 'draft' && !stored) throw notFound('Draft');
      const data = stored ? draftFromStored(table, stored) : (update.input.data ?? {});
      p.validated = validateData(table, project, data, current.data);
      p.details.push(...p.validated.details);
      const publishAt = current.publish_at === null ? null : toDate(current.publish_at);
      const requested = update.source === 'draft' ? { status: 'PUBLISHED' as const } : update.input;
      p.plan = planStatus({ status: current.status, publishAt }, requested, table.defaultStatus, p.details);
    } catch (error) {
      p.failure = error;
    }
  }

  await checkLookupsOfMany(sql, planned);
  for (const [i, p] of planned.entries()) {
    await betweenSlices(i);
    if (p.failure !== undefined) continue;
    try {
      if (p.details.length > 0) throw validationError(p.details);
      const { scope, current, validated, plan } = p as Required<Planned>;
      assertTransition(current.status, plan.status);
      const slugColumn = slugColumnOf(scope.table);
      const given = updates[i].source === 'draft' ? draftFromStored(scope.table, drafts.get(current.id)!) : (updates[i].input.data ?? {});
      if (slugColumn && given[slugColumn.name] == null && validated.data[slugColumn.name] !== undefined) {
        // A slug derived by this write (see updateContents): rare, so asked row by row.
        const derived = validated.data[slugColumn.name] as string;
        if (derived !== current.slug) validated.data[slugColumn.name] = await nextFreeSlug(sql, scope.table.id, derived);
      }
      const slug = slugColumn ? ((validated.data[slugColumn.name] as string | undefined) ?? null) : null;
      p.after = { ...current, data: validated.data, status: plan.status, slug, publish_at: plan.publishAt };
    } catch (error) {
      p.failure = error;
    }
  }
  await checkRulesOfMany(sql, updates, planned);
  const failures = new Map(planned.flatMap((p, i) => (p.failure === undefined ? [] : [[i, p.failure] as const])));
  if (failures.size > 0 && !options.partial) {
    // The first failing update (the map holds them in index order).
    const [failed, failure] = failures.entries().next().value!;
    throw new UpdateFailure(failed, failure);
  }
  // The updates that pass, by their index in `updates`.
  const passing = updates.flatMap((_, i) => (failures.has(i) ? [] : [i]));
  if (passing.length === 0) return failures;

  const writes: RowUpdate[] = passing.map((i) => {
    const { scope, current, plan, after } = planned[i] as Required<Planned>;
    const draft = updates[i].source === 'draft';
    const action = draft ? 'draftPublished' : updateAction(current.status, plan.status);
    return { ...after, publishAt: plan.publishAt, publishes: plan.publishes || draft, clearsDraft: draft, action, actor: scope.actor };
  });
  const locked = new Map(tx.locked);
  await sql(savepoint('savepoint', 'update_many'));
  const rows: ContentsRow[] = [];
  try {
    // A slice of rows per statement, the event loop free between them (see ROWS_PER_STATEMENT).
    for (let from = 0; from < writes.length; from += ROWS_PER_STATEMENT) {
      if (from > 0) await letOthersRun();
      rows.push(...(await sql<ContentsRow>(updateRows(writes.slice(from, from + ROWS_PER_STATEMENT), releaseId ?? null))));
    }
  } catch (error) {
    if (!passing.some((i) => uniqueViolationField(planned[i].scope!.table, error) || storageLimitField(planned[i].scope!.table, error))) throw error;
    // A value taken (or too large): only the writes one by one can name the row it is about.
    await sql(savepoint('rollback to savepoint', 'update_many'));
    for (const i of passing) {
      const update = updates[i];
      const source = update.source === 'draft' ? { kind: 'draft' as const } : { kind: 'body' as const };
      if (options.partial) await sql(savepoint('savepoint', 'update_one'));
      await updateContents({ ...planned[i].scope!, tx: { ...tx, locked }, releaseId }, { ...update.input, contentsId: update.contentsId } as UpdateContentsInput, source).then(
        async () => {
          if (options.partial) await sql(savepoint('release savepoint', 'update_one'));
        },
        async (failure: unknown) => {
          if (!options.partial || !(failure instanceof AppError)) throw new UpdateFailure(i, failure);
          await sql(savepoint('rollback to savepoint', 'update_one'));
          failures.set(i, failure);
        },
      );
    }
    return failures;
  }
  await sql(savepoint('release savepoint', 'update_many'));
  const byId = new Map(rows.map((row) => [row.id, row]));
  // Each row's events: 1,000 rows' outputs in one go held the event loop (shared/slices.ts).
  const events = await mapInSlices(passing, (i, k) => {
    const { scope, current, plan } = planned[i] as Required<Planned>;
    tx.counts.add(scope.table.id, current.status, plan.status);
    const types = ['contents.updated', writes[k].publishes && 'contents.published', plan.unpublishes && 'contents.unpublished'] as const;
    return rowEvents(scope, byId.get(current.id)!, [...types], { before: current });
  });
  for (const list of events) tx.events.push(...list);
  return failures;
}

/**
 * checkLookups (write.ts) for many updates: each referenced table's rows asked once (locked `for
 * key share`, as a single write locks them) and each file column's files once; what is missing
 * goes to each update's details, in the order a single write gives them.
 */
async function checkLookupsOfMany(sql: Sql, planned: Planned[]): Promise<void> {
  const live = planned.filter((p) => p.failure === undefined && p.validated);
  const wantedRows = new Map<string, Set<string>>();
  const wantedFiles = new Map<string, Set<string>>();
  for (const p of live) {
    for (const ref of p.validated!.references) for (const id of ref.ids) (wantedRows.get(ref.tableId) ?? wantedRows.set(ref.tableId, new Set()).get(ref.tableId)!).add(id);
    for (const file of p.validated!.files) for (const id of file.ids.filter(isUuid)) (wantedFiles.get(file.column.id) ?? wantedFiles.set(file.column.id, new Set()).get(file.column.id)!).add(id);
  }
  const foundRows = new Map<string, Set<string>>();
  for (const [tableId, ids] of wantedRows) foundRows.set(tableId, new Set((await sql<{ id: string }>(existingContents(tableId, [...ids], true))).map((r) => r.id)));
  const foundFiles = new Map<string, Set<string>>();
  for (const [columnId, ids] of wantedFiles) foundFiles.set(columnId, new Set((await sql<{ id: string }>(filesOfColumnProject(columnId, [...ids]))).map((f) => f.id)));
  for (const p of live) {
    for (const ref of p.validated!.references) {
      const missing = ref.ids.filter((id) => !foundRows.get(ref.tableId)?.has(id));
      if (missing.length > 0) p.details.push({ field: `data.${ref.column.name}`, message: `unknown contents id(s): ${missing.join(', ')}` });
    }
    for (const file of p.validated!.files) {
      const missing = file.ids.filter((id) => !foundFiles.get(file.column.id)?.has(id));
      if (missing.length > 0) p.details.push({ field: `data.${file.column.name}`, message: `unknown file id(s): ${missing.join(', ')}` });
    }
  }
}

/** The caller's rules on every planned change, one checkMany per table (403 as a single write's check gives it). */
async function checkRulesOfMany(sql: Sql, updates: ManyUpdate[], planned: Planned[]): Promise<void> {
  const byTable = Map.groupBy(
    planned.flatMap((p, i) => (p.failure === undefined && p.scope?.rules ? [i] : [])),
    (i) => planned[i].scope!.table.id,
  );
  for (const indexes of byTable.values()) {
    const rules = planned[indexes[0]].scope!.rules!;
    const changes: PlannedChange[] = indexes.map((i) => ({ before: planned[i].current!, after: planned[i].after!, publishes: updates[i].source === 'draft' }));
    const refusals = await rules.checkMany(sql, changes);
    refusals.forEach((refusal, k) => {
      if (refusal !== null) planned[indexes[k]].failure = forbidden(refusal);
    });
  }
}
