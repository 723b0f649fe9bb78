import type pg from 'pg';
import { AppError } from '../../errors/app-error.js';
import { savepoint, transaction, type Sql } from '../../db/sql.js';
import { emitEvents } from '../events/outbox.js';
import { newEvent, type DomainEvent } from '../events/vocabulary.js';
import { outboxOfClient } from '../../jobs/outbox.js';
import { CountChanges, lockRows, updateContents, updateMany, UpdateFailure, type ContentsRow, type UpdateContentsInput, type UpdateSource, type WriteScope } from '../contents/index.js';
import { itemsOf, markPublished, type ReleaseItemRow, type ReleaseRow } from './releases.sql.js';

/*
 * Publishing a release (docs/releases.md#publishing): every item applied in one transaction, each
 * checked as a single write is (updateMany: updateContents' checks, told for all items at once,
 * and the rows written by one statement per slice of them), so one failing item leaves every row
 * as it was. A dry run still tries each item alone (updateContents), under its own savepoint.
 */

/** The write scope of a table's rows (the caller's rules and actor, or the scheduler's). */
export type ScopeOf = (tableId: string) => Promise<WriteScope>;

/** What an item asks of its row: the update's status, or the pending draft. */
function itemWrite(item: ReleaseItemRow): { input: Partial<UpdateContentsInput>; source: UpdateSource } {
  switch (item.action) {
    case 'publish':
      return { input: { status: 'PUBLISHED' }, source: { kind: 'body' } };
    case 'unpublish':
      return { input: { status: 'DRAFT' }, source: { kind: 'body' } };
    case 'publishDraft':
      return { input: {}, source: { kind: 'draft' } };
  }
}

/**
 * An item's failure, named: `items.N` and the item id in the message, the status and code kept; a
 * 422's details are the item's, under `items.N.` (other errors carry no details, docs/reliability.md#errors).
 */
export function itemFailure(error: unknown, index: number, item: ReleaseItemRow): unknown {
  if (!(error instanceof AppError)) return error;
  const field = `items.${index}`;
  const details = error.details === null ? null : error.details.map((d) => ({ ...d, field: `${field}.${d.field}` }));
  return new AppError(error.status, error.errorCode, `${field} (item ${item.id}, contents ${item.row_id}): ${error.message}`, details, error.headers);
}

/**
 * Applies one item in the transaction on `client`, its revision naming the release; its count
 * change goes to `counts` and its events to `events`, for the end of the transaction.
 */
export async function applyItem(
  scopeOf: ScopeOf,
  tx: { sql: Sql; client: pg.PoolClient; counts: CountChanges; events: DomainEvent[]; locked: Map<string, ContentsRow> },
  releaseId: string,
  item: ReleaseItemRow,
): Promise<void> {
  const scope = await scopeOf(item.table_id);
  const { input, source } = itemWrite(item);
  await updateContents({ ...scope, tx, releaseId }, { ...input, contentsId: item.row_id } as UpdateContentsInput, source);
}

/**
 * Applies every item of a release taken (locked) in this transaction, marks it published and
 * fires the rows' events then `release.published` (one outbox insert, in that order); throws the
 * first item's failure (the caller rolls back). The rows' count changes are left in `counts`: the
 * caller applies them last, with its transaction's others (CountChanges: transactions that take
 * counter rows at their end, in one order, never deadlock).
 */
export async function publishLockedRelease(scopeOf: ScopeOf, sql: Sql, client: pg.PoolClient, release: ReleaseRow, counts: CountChanges): Promise<ReleaseRow> {
  const items = await sql<ReleaseItemRow>(itemsOf(release.id));
  const events: DomainEvent[] = [];
  // Every row locked and read at once, in id order; then all checked and written together (updateMany).
  const locked = await lockRows(sql, items.map((item) => item.row_id));
  const updates = items.map((item) => {
    const { input, source } = itemWrite(item);
    return { tableId: item.table_id, contentsId: item.row_id, input, source: source.kind === 'draft' ? ('draft' as const) : ('body' as const) };
  });
  try {
    await updateMany(scopeOf, { sql, client, counts, events, locked }, updates, release.id);
  } catch (error) {
    if (error instanceof UpdateFailure) throw itemFailure(error.error, error.index, items[error.index]);
    throw error;
  }
  const [published] = await sql<ReleaseRow>(markPublished(release.id));
  events.push(newEvent('release.published', release.project_id, null, { releaseId: release.id, count: items.length }));
  await emitEvents(outboxOfClient(client), events);
  return published;
}

/** Per item, null when it would be applied now, else the error publishing would answer; nothing is kept. */
export async function dryRun(pool: pg.Pool, scopeOf: ScopeOf, release: ReleaseRow, items: ReleaseItemRow[]): Promise<({ code: string; message: string } | null)[]> {
  const ROLLED_BACK = Symbol('rolled back');
  const problems: ({ code: string; message: string } | null)[] = [];
  // Rolled back: the count changes and events are never applied.
  const tx = { counts: new CountChanges(), events: [] as DomainEvent[] };
  await transaction(pool, async (sql, client) => {
    // Locked before the first savepoint: each item's rollback leaves the rows as read here.
    const locked = await lockRows(sql, items.map((item) => item.row_id));
    for (const item of items) {
      await sql(savepoint('savepoint', 'release_item'));
      try {
        await applyItem(scopeOf, { sql, client, ...tx, locked }, release.id, item);
        problems.push(null);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        problems.push({ code: error.errorCode, message: error.message });
      }
      await sql(savepoint('rollback to savepoint', 'release_item'));
    }
    throw ROLLED_BACK;
  }).catch((error: unknown) => {
    if (error !== ROLLED_BACK) throw error;
  });
  return problems;
}
