import { transaction, type Sql } from '../../../db/sql.js';
import { JsonbArrayWriter } from '../../../db/jsonb-param.js';
import { forbiddenLines, validationError, type ErrorDetail } from '../../../errors/app-error.js';
import { emitEvents } from '../../events/outbox.js';
import { newEvent } from '../../events/vocabulary.js';
import { outboxOfClient } from '../../../jobs/outbox.js';
import { isUuid, uuidv7 } from '../../../shared/ids.js';
import { slugColumnOf } from '../../tables/table-def.js';
import { contentStatus } from '../../tables/table.schema.js';
import type { ContentsRow } from '../rows/row.js';
import type { WriteScope } from '../rows/write.js';
import { updateAction } from '../revisions/actions.js';
import { assertTransition, planStatus } from '../rows/status.js';
import { validateData } from '../rows/validate.js';
import { SLUG } from '../rows/value-rules.js';
import { DerivedSlugs } from './derived-slugs.js';
import { mergePendingLists } from './gin-pending.js';
import { IMPORT_PENDING_LIST_LIMIT } from './gin-pending.sql.js';
import { rowsToUpsert } from './import.sql.js';
import type { ImportLine } from './import-lines.js';
import { LineProblems } from './line-problems.js';
import { AS_DRAFT_REFUSAL, RuleChecks } from './import-rules.js';
import { PlannedInserts, prefixed, type BatchContext, type BatchPlan } from './import-batch.js';
import { checkBatchLookups, lookupsOf, stillMissing } from './import-lookups.js';
import { insertPlanned, updatePlanned } from './import-writes.js';

/** Lines written per statement. */
const BATCH = 1_000;
/** The 422 (or the 403) names the first 100 offending lines (docs/import-export.md#import). */
const MAX_REPORTED_LINES = 100;

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
