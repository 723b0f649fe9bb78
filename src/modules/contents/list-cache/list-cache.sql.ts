import type { SqlQuery } from '../../../db/sql.js';

/*
 * The statements of the list cache: the change log of a table (read on every list request, so
 * named and prepared once per connection), its cleanup, and the collation probe.
 */

/**
 * The change counters of HTTP caching (migration Migration20261202040000_http_cache) of the
 * table (`t:`) and of its project (`m:`), read with the change log so that a contents GET's
 * ETag costs no statement of its own.
 */
const COUNTERS = `(select jsonb_object_agg(scope, version) from (
                    select scope, sum(version)::text as version from cache_version
                     where scope in ('t:' || $1::uuid::text, (select 'm:' || project_id::text from content_table where id = $1::uuid))
                     group by scope) v) as counters`;

/**
 * The table's totals, a new snapshot, the table's change counters and (after a first read) the
 * changes it sees that `since` did not, in one statement.
 */
export const tableState = (tableId: string, since: { xmin: number; text: string } | null): SqlQuery =>
    since
      ? {
          name: 'contents.changes',
          text: `select pg_current_snapshot()::text as snapshot,
                        (select sum(count) from contents_count where table_id = $1) as total,
                        (select sum(count) from contents_count where table_id = $1 and status = 'PUBLISHED') as published,
                        (select jsonb_agg(jsonb_build_array(c.xid::text, c.old, c.new))
                           from contents_change c
                          where c.table_id = $1 and c.xid >= $2::xid8 and not pg_visible_in_snapshot(c.xid, $3::pg_snapshot)) as changes,
                        ${COUNTERS}`,
          values: [tableId, String(since.xmin), since.text],
        }
      : {
          name: 'contents.changes.first',
          text: `select pg_current_snapshot()::text as snapshot,
                        (select sum(count) from contents_count where table_id = $1) as total,
                        (select sum(count) from contents_count where table_id = $1 and status = 'PUBLISHED') as published,
                        null::jsonb as changes,
                        ${COUNTERS}`,
          values: [tableId],
        };

/** Deletes the changes of transactions below `horizon`; returns how many. */
export const deleteChangesBefore = (horizon: number): SqlQuery => ({
  text: `with deleted as (delete from contents_change where xid < $1::xid8 returning 1) select count(*) as n from deleted`,
  values: [String(horizon)],
});

/** The oldest transaction still running (or the next to start). */
export const oldestRunningXid = (): SqlQuery => ({
  text: `select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`,
  values: [],
});

/** True when the database orders text by code point. */
export const codePointOrderProbe = (): SqlQuery => ({
  text: `select 'B' < 'a' and 'Z' < '_' and 'z' < 'é' and 'é' < '😀' and 'a' < 'ab' as codepoint`,
  values: [],
});

/** Rows of a table among `ids`, as the change log records them (`contents_change_image`). */
export const rowImages = (tableId: string, ids: string[]): SqlQuery => ({
  name: 'contents.images',
  text: `select contents_change_image(c) as image from contents c where c.table_id = $1 and c.id = any($2::uuid[])`,
  values: [tableId, ids],
});
