import { savepoint, transaction, type Sql } from '../../../db/sql.js';
import { JsonbArrayWriter, jsonbArray } from '../../../db/jsonb-param.js';
import { forbiddenLines, validationError, type ErrorDetail } from '../../../errors/app-error.js';
import { emitEvents } from '../../events/outbox.js';
import { newEvent } from '../../events/vocabulary.js';
import { outboxOfClient } from '../../../jobs/outbox.js';
import { isUuid, uuidv7 } from '../../../shared/ids.js';
import type { ContentStatus } from '../../tables/table.entity.js';
import { slugColumnOf } from '../../tables/table-def.js';
import { contentStatus } from '../../tables/table.schema.js';
import type { ContentsRow, NewRow } from '../rows/row.js';
import { existingContents, insertContentsJson, newRowJson } from '../rows/rows.sql.js';
import { checkLookups, type WriteScope } from '../rows/write.js';
import { randomShard, recordChange } from '../rows/counts.js';
import { updateAction } from '../revisions/actions.js';
import { assertTransition, planStatus } from '../rows/status.js';
import { storageLimitField, uniqueViolationField } from '../rows/uniqueness.js';
import { validateData, type ValidatedData } from '../rows/validate.js';
import { SLUG } from '../rows/value-rules.js';
import { DerivedSlugs } from './derived-slugs.js';
import { mergePendingLists } from './gin-pending.js';
import { IMPORT_PENDING_LIST_LIMIT } from './gin-pending.sql.js';
import { rowsToUpsert, updateImportedRows, type ImportedUpdate } from './import.sql.js';
import type { ImportLine } from './import-lines.js';
import { LineProblems } from './line-problems.js';
import { AS_DRAFT_REFUSAL, RuleChecks } from './import-rules.js';

/** Lines written per statement. */
const BATCH = 1_000;
/** The 422 (or the 403) names the first 100 offending lines (docs/import-export.md#import). */
const MAX_REPORTED_LINES = 100;

/** What a line asks to look up before it is written: referenced rows not known yet, and files. */
interface LineLookups extends Pick<ValidatedData, 'references' | 'files'> {
  line: number;
}

/**
 * A batch's new rows, checked and ready to write, as parallel arrays: the line, the row id and
 * the JSON text the insert takes. No object per row stays alive while the batch is written: a
 * thousand such objects, alive whenever V8 collected its young generation, made V8 allocate
 * them (and the objects of every row after them) in the old generation directly, and the API's
 * heap grew by about 90 MB per 100,000 rows until a full collection (measured 2026-11-26).
 */
class PlannedInserts {
  readonly lines: number[] = [];
  readonly ids: string[] = [];
  readonly jsons: string[] = [];
  /** Rows whose slug is still to be derived (their JSON is written then), by index. */
  readonly deriving = new Map<number, { row: NewRow; base: string }>();

  add(line: number, insert: NewRow, derivedSlug: string | null): void {
    if (derivedSlug !== null) this.deriving.set(this.jsons.length, { row: insert, base: derivedSlug });
    this.lines.push(line);
    this.ids.push(insert.row.id);
    this.jsons.push(derivedSlug === null ? newRowJson(insert) : '');
  }

  /** Writes the JSON of the rows whose slugs were derived. */
  derived(): void {
    for (const [i, { row }] of this.deriving) this.jsons[i] = newRowJson(row);
    this.deriving.clear();
  }

  without(refused: Set<number>): PlannedInserts {
    if (refused.size === 0) return this;
    const kept = new PlannedInserts();
    this.lines.forEach((line, i) => {
      if (refused.has(line)) return;
      kept.lines.push(line);
      kept.ids.push(this.ids[i]);
      kept.jsons.push(this.jsons[i]);
    });
    return kept;
  }
}

/** A line that updates an existing row (upsert). */
interface PlannedUpdate {
  line: number;
  update: ImportedUpdate;
  from: ContentStatus;
}

/** A batch's lines checked on their own (types, rules, status): what to write, and what to look up first. */
interface BatchPlan {
  inserts: PlannedInserts;
  updates: PlannedUpdate[];
  lookups: LineLookups[];
  /** The lines' changes for the caller's rules; null when the caller has none. */
  checks: RuleChecks | null;
}

/** References not found when their line was written: rows later in the file may still create them. */
interface PendingReference {
  line: number;
  column: string;
  tableId: string;
  ids: string[];
}

interface BatchContext {
  upsert: boolean;
  report: (line: number, details: ErrorDetail[]) => void;
  /** A line the caller's rules refuse (403). */
  refuse: (line: number, details: ErrorDetail[]) => void;
  slugs: DerivedSlugs;
  pending: PendingReference[];
  /**
   * Referenced rows found so far, by table: they are locked (`for key share`) until the import
   * ends, so they stay and need no second look. A file referencing the same thousand authors
   * in every batch asks for them once.
   */
  found: Map<string, Set<string>>;
  /** The batches' insert parameter, one buffer for the whole import. */
  param: JsonbArrayWriter;
}

const prefixed = (line: number, details: ErrorDetail[]) => details.map((d) => ({ field: `line ${line}: ${d.field}`, message: d.message }));

/** The line's references to rows not found yet, and its files: what is left to look up. */
function lookupsOf(line: number, { references, files }: ValidatedData, found: Map<string, Set<string>>): LineLookups | null {
  const unknown = references.filter((ref) => ref.ids.some((id) => !found.get(ref.tableId)?.has(id)));
  return unknown.length > 0 || files.length > 0 ? { line, references: unknown, files } : null;
}

/**
 * Import (docs/import-export.md#import): every line validated, unique-checked and reference-checked as a single write
 * is, written in batches inside one transaction that commits only when no line is wrong. The
 * lines stream: one batch is in memory at a time (plus the slugs this import derived, and the
 * references still unresolved). One `contents.imported` event replaces the rows' own events.
 * Checking a batch while the one before it was written (two batches alive) was measured and
 * not kept: the same rate under load, and +202 against +126 MB of API RSS for 100,000 rows.
 */
export async function importContents(scope: WriteScope, lines: AsyncIterable<ImportLine>, options: { upsert: boolean }): Promise<{ imported: number }> {
  const { table } = scope;
  const merger = await mergePendingLists(scope.pool, table.id);
  try {
    return await transaction(scope.pool, async (sql, client) => {
      await sql(IMPORT_PENDING_LIST_LIMIT);
      const problems = new LineProblems();
      const refusals = new LineProblems();
      const offending = () => problems.count + refusals.count;
      const ctx: BatchContext = {
        upsert: options.upsert,
        report: problems.report,
        refuse: refusals.report,
        slugs: new DerivedSlugs(sql, table.id),
        pending: [],
        found: new Map(),
        param: new JsonbArrayWriter(),
      };
      let imported = 0;
      let batch: ImportLine[] = [];
      const flush = async () => {
        const plan = await planBatch(scope, sql, batch, ctx);
        batch = [];
        imported += await writePlan(scope, sql, plan, ctx);
      };
      for await (const line of lines) {
        batch.push(line);
        if (batch.length === BATCH) await flush();
        // Past the reported lines, what follows would not be shown: stop reading.
        if (offending() > MAX_REPORTED_LINES) break;
      }
      if (offending() <= MAX_REPORTED_LINES) await flush();
      // Lines the caller may not write are answered first: other values would not make them writable.
      if (refusals.count > 0) throw forbiddenLines(refusals.first(MAX_REPORTED_LINES));
      for (const ref of await stillMissing(sql, ctx.pending)) {
        problems.report(ref.line, [{ field: `line ${ref.line}: data.${ref.column}`, message: `unknown contents id(s): ${ref.ids.join(', ')}` }]);
      }
      if (problems.count > 0) throw validationError(problems.first(MAX_REPORTED_LINES));
      if (imported > 0) await emitEvents(outboxOfClient(client), [newEvent('contents.imported', scope.project.id, table.id, { tableId: table.id, count: imported })]);
      return { imported };
    });
  } finally {
    await merger.stop();
  }
}

/** Checks a batch's lines on their own (types, rules, status); an upsert first reads the rows its lines name. */
async function planBatch(scope: WriteScope, sql: Sql, lines: ImportLine[], ctx: BatchContext): Promise<BatchPlan> {
  const { table, project } = scope;
  const slugColumn = slugColumnOf(table);
  const existing = ctx.upsert && lines.length > 0 ? await upsertTargets(sql, scope, lines) : new Map<string, ContentsRow>();
  const plan: BatchPlan = { inserts: new PlannedInserts(), updates: [], lookups: [], checks: scope.rules ? new RuleChecks(scope.rules) : null };
  // An upsert batch updates each row once: a second line for the same row is refused.
  const targeted = new Map<string, number>();
  // The new rows' ids given by the batch's lines (a later batch's same id is refused by the database).
  const created = new Map<string, number>();
  for (const line of lines) {
    const details = [...line.problems];
    if (line.id !== undefined && !isUuid(line.id)) details.push({ field: `line ${line.line}: id`, message: 'must be a UUID' });
    const status = line.status === undefined ? undefined : contentStatus.safeParse(line.status);
    if (status && !status.success) details.push({ field: `line ${line.line}: status`, message: `must be one of ${contentStatus.options.join(', ')}` });
    if (details.length > 0) {
      ctx.report(line.line, details);
      continue;
    }
    const current = existing.get(line.id?.toLowerCase() ?? '') ?? (slugColumn ? existing.get(`slug:${String(line.data[slugColumn.name] ?? '')}`) : undefined);
    if (current && targeted.has(current.id)) {
      ctx.report(line.line, [{ field: `line ${line.line}`, message: `names the same row as line ${targeted.get(current.id)}` }]);
      continue;
    }
    if (current) targeted.set(current.id, line.line);
    else if (line.id !== undefined) {
      // Two new rows with one id: the batch's insert would take one and then fail on its revisions.
      const id = line.id.toLowerCase();
      const first = created.get(id);
      if (first !== undefined) {
        ctx.report(line.line, [{ field: `line ${line.line}: id`, message: `the same id as line ${first}` }]);
        continue;
      }
      created.set(id, line.line);
    }
    const input = { status: status?.data, publishAt: line.publishAt };
    const checked = validateData(table, project, line.data, current?.data ?? null);
    const own: ErrorDetail[] = [...checked.details];
    const publishAt = current?.publish_at ? new Date(current.publish_at) : null;
    const planned = planStatus(current ? { status: current.status, publishAt } : null, input, table.defaultStatus, own);
    if (current && own.length === 0) {
      try {
        assertTransition(current.status, planned.status);
      } catch (error) {
        own.push({ field: 'status', message: (error as Error).message });
      }
    }
    if (own.length > 0) {
      ctx.report(line.line, prefixed(line.line, own));
      continue;
    }
    if (current && plan.checks?.refusesUpdateOf(current)) {
      ctx.refuse(line.line, [{ field: `line ${line.line}`, message: AS_DRAFT_REFUSAL }]);
      continue;
    }
    const lookups = lookupsOf(line.line, checked, ctx.found);
    if (lookups) plan.lookups.push(lookups);
    const slug = slugColumn ? ((checked.data[slugColumn.name] as string | undefined) ?? null) : null;
    if (current) {
      const action = updateAction(current.status, planned.status);
      const update = { id: current.id, data: checked.data, status: planned.status, slug, publishAt: planned.publishAt, publishes: planned.publishes, action };
      plan.updates.push({ line: line.line, from: current.status, update });
      plan.checks?.add(line.line, { before: current, after: { ...current, data: checked.data, status: planned.status, slug, publish_at: planned.publishAt } });
      continue;
    }
    const derivedSlug = slugColumn && line.data[slugColumn.name] == null && slug !== null ? slug : null;
    const now = new Date();
    const row: ContentsRow = {
      id: line.id?.toLowerCase() ?? uuidv7(now.getTime()),
      table_id: table.id,
      status: planned.status,
      slug,
      data: checked.data,
      created_at: now,
      updated_at: now,
      published_at: planned.publishes ? now : null,
      publish_at: planned.publishAt,
      version: 1,
    };
    plan.inserts.add(line.line, { row, projectId: project.id, events: [], actor: scope.actor }, derivedSlug);
    // The same row object: a derived slug is in it when the batch is checked.
    plan.checks?.add(line.line, { before: null, after: row });
  }
  return plan;
}

/**
 * Writes a checked batch: derived slugs, the caller's rules (docs/roles.md#imports), references
 * and files against the stored rows, then the rows; answers how many it wrote.
 */
async function writePlan(scope: WriteScope, sql: Sql, { inserts, updates, lookups, checks }: BatchPlan, ctx: BatchContext): Promise<number> {
  const slugColumn = slugColumnOf(scope.table);
  if (slugColumn && inserts.deriving.size > 0) {
    await ctx.slugs.assign([...inserts.deriving.values()], slugColumn.name);
    inserts.derived();
  }
  const forbidden = checks ? await checks.refused(sql, ctx.refuse) : new Set<number>();
  const refused = await checkBatchLookups(sql, forbidden.size > 0 ? lookups.filter((l) => !forbidden.has(l.line)) : lookups, ctx);
  for (const line of forbidden) refused.add(line);
  const good = updates.filter((p) => !refused.has(p.line));
  return (await insertPlanned(scope, sql, inserts.without(refused), ctx)) + (await updatePlanned(scope, sql, good, ctx));
}

/** Existing rows the upsert lines name, by `id` and by `slug:<value>`. */
async function upsertTargets(sql: Sql, scope: WriteScope, lines: ImportLine[]): Promise<Map<string, ContentsRow>> {
  const slugColumn = slugColumnOf(scope.table);
  const ids = lines.flatMap((l) => (l.id && isUuid(l.id) ? [l.id.toLowerCase()] : []));
  // Only values that can be slugs: any other (one with a NUL, even) is refused by validation, never looked up.
  const slugOf = (l: ImportLine) => (slugColumn ? l.data[slugColumn.name] : undefined);
  const slugs = lines.flatMap((l) => {
    const slug = slugOf(l);
    return typeof slug === 'string' && SLUG.test(slug) ? [slug] : [];
  });
  const rows = await sql<ContentsRow>(rowsToUpsert(scope.table.id, ids, slugs));
  return new Map(rows.flatMap((r) => [[r.id, r] as const, ...(r.slug ? [[`slug:${r.slug}`, r] as const] : [])]));
}

/**
 * References and files of the batch's good lines: files must exist now (the lines refused for a
 * missing file are answered); references may come later in the file (kept pending).
 */
async function checkBatchLookups(sql: Sql, lookups: LineLookups[], ctx: BatchContext): Promise<Set<number>> {
  const refused = new Set<number>();
  const unknown = new Map<string, Set<string>>();
  for (const { references } of lookups) {
    for (const ref of references) {
      const found = ctx.found.get(ref.tableId);
      for (const id of ref.ids) if (!found?.has(id)) unknown.set(ref.tableId, (unknown.get(ref.tableId) ?? new Set()).add(id));
    }
  }
  for (const [tableId, ids] of unknown) {
    const found = ctx.found.get(tableId) ?? new Set<string>();
    for (const { id } of await sql<{ id: string }>(existingContents(tableId, [...ids], true))) found.add(id);
    ctx.found.set(tableId, found);
  }
  for (const { line, references, files } of lookups) {
    for (const ref of references) {
      const missing = ref.ids.filter((id) => !ctx.found.get(ref.tableId)?.has(id));
      if (missing.length > 0) ctx.pending.push({ line, column: ref.column.name, tableId: ref.tableId, ids: missing });
    }
    if (files.length > 0) {
      const details: ErrorDetail[] = [];
      await checkLookups(sql, { references: [], files }, details);
      if (details.length > 0) {
        ctx.report(line, prefixed(line, details));
        refused.add(line);
      }
    }
  }
  return refused;
}

/** The pending references still missing once every line is written (lines of the file included). */
async function stillMissing(sql: Sql, pending: PendingReference[]): Promise<PendingReference[]> {
  const missing: PendingReference[] = [];
  for (const [tableId, refs] of Map.groupBy(pending, (p) => p.tableId)) {
    const ids = [...new Set(refs.flatMap((r) => r.ids))];
    const found = new Set((await sql<{ id: string }>(existingContents(tableId, ids, true))).map((r) => r.id));
    for (const ref of refs) {
      const still = ref.ids.filter((id) => !found.has(id));
      if (still.length > 0) missing.push({ ...ref, ids: still });
    }
  }
  return missing;
}

/**
 * Inserts the batch's new rows in one statement; a row whose unique value (id, slug, unique
 * column) is taken, by a stored row or an earlier line, is left out by it and then tried alone
 * under a savepoint, so that the line's error names the field.
 */
async function insertPlanned(scope: WriteScope, sql: Sql, inserts: PlannedInserts, ctx: BatchContext): Promise<number> {
  if (inserts.ids.length === 0) return 0;
  const all = insertContentsJson(ctx.param.write(inserts.jsons), true, randomShard(), true);
  const inserted = new Set((await sql<{ id: string }>(all)).map((r) => r.id));
  for (const [i, id] of inserts.ids.entries()) {
    if (inserted.has(id)) continue;
    await sql(savepoint('savepoint', 'import_row'));
    try {
      await sql(insertContentsJson(jsonbArray([inserts.jsons[i]]), false, randomShard(), true));
      await sql(savepoint('release savepoint', 'import_row'));
      inserted.add(id);
    } catch (error) {
      await sql(savepoint('rollback to savepoint', 'import_row'));
      ctx.report(inserts.lines[i], [conflictDetail(scope, inserts.lines[i], error)]);
    }
  }
  return inserted.size;
}

function conflictDetail(scope: WriteScope, line: number, error: unknown): ErrorDetail {
  const { code, constraint } = ((error as { cause?: unknown }).cause ?? error) as { code?: string; constraint?: string };
  if (code === '23505' && constraint === 'contents_pkey') return { field: `line ${line}: id`, message: 'a row with this id already exists' };
  const field = uniqueViolationField(scope.table, error);
  if (field) return { field: `line ${line}: ${field}`, message: 'this value already exists in another row or an earlier line' };
  const tooLarge = storageLimitField(scope.table, error);
  if (tooLarge) return { field: `line ${line}: ${tooLarge}`, message: 'is too large to store' };
  throw error;
}

/** Updates the batch's matched rows (upsert) in one statement; on a taken unique value, row by row to name the line. */
async function updatePlanned(scope: WriteScope, sql: Sql, updates: PlannedUpdate[], ctx: BatchContext): Promise<number> {
  if (updates.length === 0) return 0;
  const run = async (batch: PlannedUpdate[]) => {
    await sql(updateImportedRows(batch.map((p) => p.update), scope.actor));
    for (const [key, group] of Map.groupBy(batch, (p) => `${p.from} ${p.update.status}`)) {
      const [from, to] = key.split(' ') as [ContentStatus, ContentStatus];
      if (from !== to) await recordChange(sql, scope.table.id, from, to, group.length);
    }
  };
  await sql(savepoint('savepoint', 'import_updates'));
  try {
    await run(updates);
    await sql(savepoint('release savepoint', 'import_updates'));
    return updates.length;
  } catch {
    await sql(savepoint('rollback to savepoint', 'import_updates'));
  }
  let written = 0;
  for (const p of updates) {
    await sql(savepoint('savepoint', 'import_row'));
    try {
      await run([p]);
      await sql(savepoint('release savepoint', 'import_row'));
      written++;
    } catch (error) {
      await sql(savepoint('rollback to savepoint', 'import_row'));
      ctx.report(p.line, [conflictDetail(scope, p.line, error)]);
    }
  }
  return written;
}

