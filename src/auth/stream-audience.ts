import { sqlOn, type Sql } from '../db/sql.js';
import { visibleData } from '../modules/contents/index.js';
import { AS_RECORDED, LEFT_VIEW, type EventLens, type FeedEntry } from '../modules/events/stream/envelope.js';
import type { StreamAudience } from '../modules/events/stream/stream-subscription.js';
import type { DomainEvent } from '../modules/events/vocabulary.js';
import { tablesNamed, usesNow, type TablePolicy } from '../modules/roles/policy.js';
import { conditionsOn } from '../modules/roles/row-conditions.js';
import type { RowState } from '../modules/roles/write-rules.sql.js';
import type { FileFields, FileScope, FilesPolicy } from '../modules/roles/files-policy.js';
import { fileFieldsInside } from '../modules/files/file.sql.js';
import type { RowScope, ScopedRow, TableDef } from '../modules/tables/table-def.js';
import { ProjectAccess } from './project-access.js';

/*
 * What a realtime stream's caller sees of each event, by its policy (docs/roles.md#events,
 * docs/realtime.md#who-sees-what): the events of a contents row that its rules let it read, with
 * the columns it reads; a row that leaves its view as `contents.unpublished` with `{ id, tableId }`;
 * files events of the files its `$files` rules read; tables events of the tables its rules name.
 * Webhooks are not filtered: a project ADMIN configures them.
 */

/** A contents row as an event carries it (the wire object, timestamps to the millisecond). */
interface WireRow {
  id: string;
  slug: string | null;
  status: string;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  publishAt: string | null;
  hasDraft?: boolean;
}

/** Events a subscriber the row leaves receives as `contents.unpublished` (when they carry the leave, see `rowBefore`). */
const MAY_LEAVE = new Set(['contents.updated', 'contents.published', 'contents.unpublished']);

/**
 * The row before the change, when the event tells it: its data overlaid with what the change
 * replaced (`previous`, on the last event of an update). An unpublished row recorded without it
 * was PUBLISHED. Null: the event does not carry the row's leaving (another event of the same
 * write does, or none does).
 */
function rowBefore(event: DomainEvent, after: WireRow): WireRow | null {
  if (!MAY_LEAVE.has(event.type)) return null;
  if (event.previous) {
    const { data, ...fields } = event.previous;
    return { ...after, ...fields, data: { ...after.data, ...data } } as WireRow;
  }
  return event.type === 'contents.unpublished' ? { ...after, status: 'PUBLISHED' } : null;
}

/** `…:05.123Z` → `…:05.123000Z`: the evaluator's microsecond form. */
const micros = (instant: string | null) => (instant !== null && /\.\d{3}Z$/.test(instant) ? `${instant.slice(0, -1)}000Z` : instant);

/** The row as a RowScope's JavaScript test reads it (query/evaluate.ts, RowValues). */
const valuesOf = (row: WireRow): ScopedRow =>
  ({
    id: row.id,
    slug: row.slug,
    status: row.status,
    data: row.data,
    createdAt: micros(row.createdAt),
    updatedAt: micros(row.updatedAt),
    publishedAt: micros(row.publishedAt),
    publishAt: micros(row.publishAt),
  }) as ScopedRow;

/** The row as a RowScope's SQL reads it, given as values (conditionsOnRows). */
const stateOf = (row: WireRow, tableId: string): RowState => ({
  id: row.id,
  table_id: tableId,
  status: row.status,
  slug: row.slug,
  data: row.data,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  published_at: row.publishedAt,
  publish_at: row.publishAt,
});

/**
 * Whether rows (and files) are inside the caller's scopes: told in JavaScript where it can be,
 * else asked of the database on the row as the event carries it (so a deleted row is judged
 * too), one statement per condition for a whole batch.
 */
class RowJudge {
  private readonly questions = new Map<string, { rows: RowState[]; answers: boolean[] }>();
  /** Files JavaScript could not tell (case folding outside ASCII): one statement each. */
  private readonly files: { scope: FileScope; file: FileFields; answer: boolean }[] = [];

  /** The answer now (true or false), or a function that gives it once `settle` has run. */
  inside(rows: RowScope | undefined, row: WireRow, tableId: string): boolean | (() => boolean) {
    if (!rows) return true;
    const told = rows.matches(valuesOf(row));
    if (told !== null) return told;
    let question = this.questions.get(rows.sql);
    if (!question) this.questions.set(rows.sql, (question = { rows: [], answers: [] }));
    const n = question.rows.push(stateOf(row, tableId)) - 1;
    return () => question.answers[n] === true;
  }

  /** The same for a file's fields and the caller's readable files. */
  insideFiles(scope: FileScope, file: FileFields): boolean | (() => boolean) {
    const told = scope.matches(file);
    if (told !== null) return told;
    const question = { scope, file, answer: false };
    this.files.push(question);
    return () => question.answer;
  }

  /** Whether anything is left for the database. */
  get asks(): boolean {
    return this.questions.size > 0 || this.files.length > 0;
  }

  async settle(sql: Sql): Promise<void> {
    await Promise.all([
      ...[...this.questions].map(async ([condition, question]) => {
        const holds = await conditionsOn(sql, question.rows, [condition]);
        question.answers = question.rows.map((_, row) => holds(row, condition));
      }),
      ...this.files.map(async (question) => {
        const [answer] = await sql<{ c0: boolean }>(fileFieldsInside(question.file, [question.scope.sql]));
        question.answer = answer?.c0 === true;
      }),
    ]);
  }
}

const answer = (verdict: boolean | (() => boolean)) => (typeof verdict === 'boolean' ? verdict : verdict());

/** A contents row's event as the caller's view shows it: its readable columns, `hasDraft` only with drafts. */
function shownRow(row: WireRow, view: TableDef, drafts: boolean): object {
  const shown: Partial<WireRow> = { ...row, data: visibleData(view, row.data ?? {}) };
  if (!drafts) delete shown.hasDraft;
  return shown;
}

/** The lens of a policy's view, one per compiled policy: as recorded when the view hides nothing of a row. */
const viewLenses = new WeakMap<TablePolicy, EventLens>();
function viewLens(policy: TablePolicy, table: TableDef): EventLens {
  let lens = viewLenses.get(policy);
  if (!lens) {
    const { view, drafts } = policy;
    // The envelope depends on the readable columns (the view's schema key) and on drafts, not on the rows.
    lens =
      view.schemaKey === table.schemaKey && drafts
        ? AS_RECORDED
        : { key: `view:${view.schemaKey}:${drafts ? 'drafts' : 'live'}`, show: (event) => ({ type: event.type, data: shownRow(event.data as WireRow, view, drafts) }) };
    viewLenses.set(policy, lens);
  }
  return lens;
}

/** A table that no longer exists: the events it left in the feed are judged by the caller's `*` rules. */
const goneTable = (projectId: string, id: string): TableDef => ({ id, projectId, key: '', defaultStatus: 'DRAFT', columns: [], hiddenKeys: [], schemaKey: 'gone' });

/** The table of a contents event, which the caller's policy on that table decides; null for files and tables events. */
const rowTableOf = (event: DomainEvent): string | null => (event.type.startsWith('contents.') ? event.tableId : null);

/**
 * A files event reaches a custom role when the file, as the event carries it, is inside its
 * `$files` read rules (docs/roles.md#files): as they are, since every field of a file is readable.
 */
function fileDecision(event: DomainEvent, files: FilesPolicy, judge: RowJudge): () => EventLens | null {
  if (files.readable === null) return () => AS_RECORDED;
  const inside = judge.insideFiles(files.readable, event.data as FileFields);
  return () => (answer(inside) ? AS_RECORDED : null);
}

interface Judged {
  table: TableDef;
  policy: TablePolicy;
}

/**
 * The audience of one stream: the caller's access, renewed by each recheck of the stream
 * (auth/stream-access.ts), so that a changed role applies to an open stream within
 * REALTIME_RECHECK_MS and the credential cache's half second.
 */
export class PolicyAudience implements StreamAudience {
  /** The policies last used, by table id, for `mayReceive` (none for rules with `$now`, which change by the second). */
  private readonly known = new Map<string, Judged>();
  private timed: boolean;

  constructor(private access: ProjectAccess) {
    this.timed = usesNow(access.rules);
  }

  renew(checked: unknown): void {
    if (!(checked instanceof ProjectAccess)) return;
    this.access = checked;
    this.timed = usesNow(checked.rules);
    this.known.clear();
  }

  mayReceive(entry: FeedEntry): boolean {
    const { event } = entry;
    const tableId = rowTableOf(event);
    const judged = tableId ? this.known.get(tableId) : undefined;
    if (!judged) return true;
    const { grants, view } = judged.policy;
    if (grants.read.length === 0) return false;
    if (event.type === 'contents.imported') return !view.rows;
    if (!view.rows) return true;
    const after = event.data as WireRow;
    if (view.rows.matches(valuesOf(after)) !== false) return true;
    const before = rowBefore(event, after);
    return before !== null && view.rows.matches(valuesOf(before)) !== false;
  }

  async lenses(entries: readonly FeedEntry[]): Promise<(EventLens | null)[]> {
    const access = this.access;
    // The policy of each table of the batch (a cache look-up, once per table), then each entry without waiting.
    const tables = new Map<string, Judged>();
    for (const { event } of entries) {
      const tableId = rowTableOf(event);
      if (tableId && !tables.has(tableId)) tables.set(tableId, await this.judged(access, tableId));
    }
    const judge = new RowJudge();
    // Built-in grants read every file and table; a custom role, the files of its `$files` read
    // rules and the tables its rules name, as the files and tables lists show them.
    const files = access.role ? access.filesPolicy() : null;
    const named = access.role ? tablesNamed(access.rules) : undefined;
    const decisions = entries.map(({ event }) => {
      const tableId = rowTableOf(event);
      if (tableId) return this.decide(event, tables.get(tableId)!, judge);
      if (files && event.type.startsWith('files.')) return fileDecision(event, files, judge);
      if (named && event.type.startsWith('tables.')) return () => (named.includes((event.data as { key?: string }).key ?? '') ? AS_RECORDED : null);
      return () => AS_RECORDED;
    });
    if (judge.asks) await judge.settle(sqlOn(access.deps.pool));
    // Kept for `mayReceive` unless the access was renewed meanwhile or its rules change by the second.
    if (this.access === access && !this.timed) for (const [tableId, judged] of tables) this.known.set(tableId, judged);
    return decisions.map((decision) => decision());
  }

  private async judged(access: ProjectAccess, tableId: string): Promise<Judged> {
    const table = (await access.deps.tables.get(access.project.id, tableId)) ?? goneTable(access.project.id, tableId);
    return { table, policy: await access.policy(table) };
  }

  /**
   * How the caller receives one contents event, once the judge has settled: as its view shows the
   * row when the row (after the change) is inside the view; as LEFT_VIEW when the row was inside
   * before and this event carries its leaving; otherwise not at all. A deleted row is judged as
   * it was when deleted: never shown to a caller whose view did not hold it.
   */
  private decide(event: DomainEvent, { table, policy }: Judged, judge: RowJudge): () => EventLens | null {
    const { grants, view } = policy;
    if (grants.read.length === 0) return () => null;
    // An import's `{ tableId, count }` tells of every row: for callers that read every row only.
    if (event.type === 'contents.imported') return () => (view.rows ? null : AS_RECORDED);
    const after = event.data as WireRow;
    const inside = judge.inside(view.rows, after, table.id);
    if (inside === true) return () => viewLens(policy, table);
    const before = rowBefore(event, after);
    const was = before ? judge.inside(view.rows, before, table.id) : false;
    return () => (answer(inside) ? viewLens(policy, table) : answer(was) ? LEFT_VIEW : null);
  }
}
