import { conflict } from '../../../errors/app-error.js';
import type { Sql } from '../../../db/sql.js';
import type { TableDef } from '../../tables/table-def.js';
import type { ContentsRow } from '../rows/row.js';
import type { Actor } from '../revisions/actions.js';
import type { PreviousFields } from '../../events/vocabulary.js';
import {
  clearReferencesQuery,
  deleteReferencingQuery,
  type ClearedRow,
  referencingColumnsQuery,
  referencingRowsQuery,
  referrerCountsQuery,
  type ReferencingColumn,
} from './references.sql.js';

/** How many referencing ids a `restrict` refusal names. */
const NAMED_IDS = 5;

/** What deleting rows did to the rows that referenced them (`onDelete`, docs/contents.md#references). */
export interface DeleteEffects {
  /** Rows deleted by `cascade`, each with its table. */
  deleted: ContentsRow[];
  /** Rows whose references were cleared by `setNull`. */
  updated: ContentsRow[];
  /** Per row of `updated`, what the clearing replaced (DomainEvent.previous). */
  previous: Map<string, PreviousFields>;
}

/**
 * Applies `onDelete` of every reference column that points at the deleted rows, in the delete's
 * transaction (after the rows themselves are gone): `restrict` refuses with 409 while any row
 * still references them, `setNull` clears the references, `cascade` deletes the referencing rows
 * and goes on with their own referrers. The deleted rows were locked first (`for update`), and a
 * writer that references a row locks it `for key share` while it checks the id: a reference
 * committed concurrently is either seen here or refused there, never left dangling.
 */
export async function applyOnDelete(sql: Sql, projectId: string, tableId: string, ids: string[], actor: Actor | null): Promise<DeleteEffects> {
  const effects: DeleteEffects = { deleted: [], updated: [], previous: new Map() };
  const columnsOf = new Map<string, ReferencingColumn[]>();
  const queue = [{ tableId, ids }];
  for (let next = queue.shift(); next; next = queue.shift()) {
    let refs = columnsOf.get(next.tableId);
    if (!refs) columnsOf.set(next.tableId, (refs = await sql<ReferencingColumn>(referencingColumnsQuery(projectId, next.tableId))));
    // Restrictions first: nothing is changed for a delete that is refused anyway.
    for (const ref of refs.filter((r) => r.onDelete === 'restrict')) {
      const holders = await sql<{ id: string }>(referencingRowsQuery(ref, next.ids, NAMED_IDS));
      if (holders.length > 0) {
        throw conflict(
          `Contents is still referenced by table "${ref.tableKey}", column "${ref.column}" (onDelete: restrict): ${holders.map((h) => h.id).join(', ')}`,
        );
      }
    }
    for (const ref of refs) {
      if (ref.onDelete === 'setNull') {
        for (const row of await sql<ClearedRow>(clearReferencesQuery(ref, next.ids, actor))) {
          effects.updated.push(row);
          // The first clearing of a row saw it as it was before the delete.
          const previous = effects.previous.get(row.id) ?? { updatedAt: row.previous_updated_at, data: {} };
          if (!Object.hasOwn(previous.data!, ref.column)) previous.data![ref.column] = row.previous_value ?? null;
          effects.previous.set(row.id, previous);
        }
      }
      if (ref.onDelete !== 'cascade') continue;
      const deleted = await sql<ContentsRow>(deleteReferencingQuery(ref, next.ids));
      if (deleted.length === 0) continue;
      effects.deleted.push(...deleted);
      queue.push({ tableId: ref.tableId, ids: deleted.map((row) => row.id) });
    }
  }
  // One event per row: a row cleared in two columns is one update (its last image), and a row
  // cleared and then deleted by a later cascade is only deleted.
  const gone = new Set(effects.deleted.map((row) => row.id));
  const latest = new Map(effects.updated.map((row) => [row.id, row]));
  effects.updated = [...latest.values()].filter((row) => !gone.has(row.id));
  return effects;
}

/** One entry of `GET .../referrers`. */
export interface Referrer {
  tableId: string;
  tableKey: string;
  column: string;
  count: number;
}

/**
 * The live references to a row, per referencing column (what a `restrict` delete would be
 * refused for), counting only what the caller sees: `views` gives the caller's view of each
 * table (its `rows` and readable columns; null: a table it cannot read, which counts nothing).
 */
export async function referrersOf(sql: Sql, projectId: string, tableId: string, id: string, views: (tableId: string) => Promise<TableDef | null>): Promise<Referrer[]> {
  const found = await sql<ReferencingColumn>(referencingColumnsQuery(projectId, tableId));
  const viewed = await Promise.all(found.map(async (ref) => ({ ref, view: await views(ref.tableId) })));
  const readable = viewed.filter(({ ref, view }) => view?.columns.some((c) => c.name === ref.column));
  const refs = readable.map(({ ref }) => ref);
  if (refs.length === 0) return [];
  const visible = readable.map(({ view }) => view!.rows?.sql ?? null);
  const counts = await sql<{ i: number; count: number }>(referrerCountsQuery(refs, id, visible));
  return counts
    .filter((c) => c.count > 0)
    .map((c) => ({ tableId: refs[c.i].tableId, tableKey: refs[c.i].tableKey, column: refs[c.i].column, count: c.count }));
}
