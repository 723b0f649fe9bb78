import type pg from 'pg';
import type { DomainEvent } from '../../jobs/outbox.js';
import { coalesce } from '../../shared/coalesce.js';
import { CONTENTS_COLUMNS, type ContentsRow } from './contents.row.js';
import { countNewRows, randomShard } from './counts.js';

/** A row to create, with the events it emits (built before the insert: every value is known). */
export interface NewRow {
  row: ContentsRow;
  projectId: string;
  events: DomainEvent[];
}

/**
 * Inserts new rows, their count changes and their events in one statement: atomic without a
 * transaction. The rows travel as one JSON array (one parameter, one parse), so the statement's
 * text is the same for one row or a hundred and is prepared once per connection.
 * `skipTaken`: rows whose unique value (slug or a unique column) is taken are left out of the
 * answer instead of failing the statement.
 */
function insertStatement(rows: NewRow[], skipTaken: boolean) {
  return {
    name: skipTaken ? 'contents.create.batch' : 'contents.create',
    text: `with input as (
             select * from jsonb_to_recordset($1::jsonb) as r(
               id uuid, project_id uuid, table_id uuid, status text, slug text, data jsonb,
               publish_at timestamptz, published_at timestamptz, created_at timestamptz, events jsonb)
           ), inserted as (
             insert into contents (id, project_id, table_id, status, slug, data, publish_at, published_at, created_at, updated_at)
             select id, project_id, table_id, status, slug, data, publish_at, published_at, created_at, created_at from input
             ${skipTaken ? 'on conflict do nothing' : ''}
             returning ${CONTENTS_COLUMNS}
           ), counted as (${countNewRows('inserted', '$2')}
           ), outboxed as (
             insert into event_outbox (id, payload)
             select (e.event->>'id')::uuid, e.event
               from input join inserted using (id) cross join jsonb_array_elements(input.events) as e(event)
           )
           select * from inserted`,
    values: [JSON.stringify(rows.map(({ row, projectId, events }) => ({ ...row, project_id: projectId, events }))), randomShard()],
  };
}

/** Inserts one row; a taken unique value fails the statement (23505) as a single insert would. */
export async function insertRow(db: pg.Pool | pg.PoolClient, row: NewRow): Promise<ContentsRow> {
  const { rows } = await db.query<ContentsRow>(insertStatement([row], false));
  return rows[0];
}

/** Concurrent creates leave in batches of up to this many rows... */
const MAX_BATCH = 64;
/** ...with at most this many batches running at once per pool. */
const MAX_IN_FLIGHT = 4;

const batchInserters = new WeakMap<pg.Pool, (row: NewRow) => Promise<ContentsRow | null>>();

/**
 * Inserts a row together with the creates running concurrently on the same pool (one statement,
 * one commit for the batch: per row, PostgreSQL and the API each do a fraction of the work).
 * Answers the inserted row, or null when one of its unique values was taken, by an existing row
 * or by an earlier row of the same batch. Rejects when the batch's statement failed; the caller
 * then inserts its row alone, so one bad row never fails the others.
 */
export function insertRowBatched(pool: pg.Pool, row: NewRow): Promise<ContentsRow | null> {
  let insert = batchInserters.get(pool);
  if (!insert) {
    insert = coalesce(
      async (rows: NewRow[]) => {
        const { rows: inserted } = await pool.query<ContentsRow>(insertStatement(rows, true));
        const byId = new Map(inserted.map((r) => [r.id, r]));
        return rows.map(({ row }) => byId.get(row.id) ?? null);
      },
      { maxBatch: MAX_BATCH, maxInFlight: MAX_IN_FLIGHT },
    );
    batchInserters.set(pool, insert);
  }
  return insert(row);
}
