import type { SqlQuery } from '../../../db/sql.js';
import { jsonbArray } from '../../../db/jsonb-param.js';
import type { Actor, RevisionAction } from '../revisions/actions.js';
import { lastActor, reviseRows } from '../revisions/revisions.sql.js';
import type { ContentStatus } from '../../tables/table.entity.js';
import { CONTENTS_COLUMNS, ROW_FIELDS, type NewRow } from './row.js';
import type { TableDef } from '../../tables/table-def.js';

/*
 * The statements of contents rows: the hot path's reads and writes (named ones are prepared
 * once per connection, so their text never varies with the values), the counters of exact
 * totals (counts.ts), slugs, and scheduled publishing.
 */

/**
 * SCHEDULED rows of live tables whose `publishAt` has passed, oldest first, locked; `skip locked`
 * lets several publishers share the work.
 */
export const dueScheduledContents = (batch: number): SqlQuery => ({
  text: `select ${CONTENTS_COLUMNS}, project_id from contents
          where status = 'SCHEDULED' and publish_at <= now()
            and table_id in (select id from content_table where deleted_at is null)
          order by publish_at limit $1 for update skip locked`,
  values: [batch],
});

/** In how many ms the next SCHEDULED row comes due (null: none), as msUntilNextRelease (releases.sql.ts). */
export const msUntilNextScheduled = (): SqlQuery => ({
  text: `select (extract(epoch from min(publish_at) - clock_timestamp()) * 1000)::float8 as ms
           from contents where status = 'SCHEDULED' and publish_at > now()`,
  values: [],
});

/** Publishes one scheduled row now; returns it. */
export const publishScheduledContents = (id: string): SqlQuery => ({
  text: `with published as (
           update contents set status = 'PUBLISHED', published_at = now(), publish_at = null, updated_at = now(), version = version + 1
            where id = $1 returning ${CONTENTS_COLUMNS}
         ), revised as (${reviseRows('published', `'published'`, lastActor('published.id', 'actor_type'), lastActor('published.id', 'actor_id'))})
         select ${ROW_FIELDS} from published`,
  values: [id],
});

/**
 * Rows of a table among `ids` (a reference column's values must exist). Inside a transaction,
 * `lock` holds them `for key share` until it ends: a concurrent delete of one waits, and then
 * finds the new reference (contents/references/references.ts).
 */
export const existingContents = (tableId: string, ids: string[], lock = false): SqlQuery => ({
  text: `select id from contents where table_id = $1 and id = any($2::uuid[])${lock ? ' for key share' : ''}`,
  values: [tableId, ids],
});

/** Files among `ids` of the project that owns the column's table. */
export const filesOfColumnProject = (columnId: string, ids: string[]): SqlQuery => ({
  text: `select f.id from file f
               join content_column c on c.id = $1
               join content_table t on t.id = c.table_id
              where f.project_id = t.project_id and f.id = any($2::uuid[])`,
  values: [columnId, ids],
});

/** A row by id (a lower-case uuid) or by slug; `forUpdate` locks it. */
export const rowByIdOrSlug = (tableId: string, idOrSlug: string, byId: boolean, forUpdate: boolean, visible?: string): SqlQuery => ({
  // Prepared once per shape; a caller's visibility condition makes its own (unnamed) statement.
  ...(visible ? {} : { name: `contents.find.${byId ? 'id' : 'slug'}${forUpdate ? '.lock' : ''}` }),
  text: `select ${CONTENTS_COLUMNS} from contents where table_id = $1 and ${byId ? 'id = $2::uuid' : 'slug = $2'}${visible ? ` and (${visible})` : ''}${forUpdate ? ' for update' : ''}`,
  values: [tableId, idOrSlug],
});

/** Which of `ids` are rows of the table that `visible` (a caller's read rules, RowScope.sql) lets it see. */
export const visibleIds = (tableId: string, ids: string[], visible: string): SqlQuery => ({
  text: `select id from contents where id = any($1::uuid[]) and table_id = $2 and (${visible})`,
  values: [ids, tableId],
});

/** Rows by id, locked for update in id order (a release takes all its rows at once). */
export const lockRowsById = (ids: string[]): SqlQuery => ({
  text: `select ${CONTENTS_COLUMNS} from contents where id = any($1::uuid[]) order by id for update`,
  values: [ids],
});

/** Which of `ids` are rows of the view's table inside its `rows` (a caller's view, docs/roles.md). */
export const visibleAmong = (view: TableDef, ids: string[]): SqlQuery => ({
  text: `select id::text as id from contents where table_id = $1 and id = any($2::uuid[]) and (${view.rows?.sql ?? 'true'})`,
  values: [view.id, ids],
});

/** Writers deriving the same slug in a table queue on this lock until their transaction ends. */
export const lockSlug = (tableId: string, base: string): SqlQuery => ({
  text: 'select pg_advisory_xact_lock(hashtextextended($1, 0))',
  values: [`slug:${tableId}:${base}`],
});

/** Slugs of a table that are `base` or `base-N`. */
export const slugsLike = (tableId: string, base: string): SqlQuery => ({
  text: `select slug from contents where table_id = $1 and (slug = $2 or slug ~ ('^' || $3 || '-[0-9]+$'))`,
  values: [tableId, base, base.replace(/[^a-z0-9-]/g, '')],
});

/**
 * Replaces a row's data, status and slug (`publishes` stamps `published_at`), counts its version
 * up and records the revision, in one statement; `clearsDraft` drops the pending draft (it has
 * just been published). Returns the row.
 */
export const updateRow = (
  id: string,
  data: Record<string, unknown>,
  status: ContentStatus,
  slug: string | null,
  publishAt: Date | null,
  publishes: boolean,
  revision: { action: RevisionAction; actor: Actor | null; releaseId?: string | null },
  clearsDraft = false,
): SqlQuery => ({
  text: `with updated as (
           update contents set data = $2, status = $3, slug = $4, publish_at = $5,
                 published_at = case when $6 then now() else published_at end, updated_at = now(), version = version + 1,
                 draft = case when $10 then null else draft end
            where id = $1 returning ${CONTENTS_COLUMNS}
         ), revised as (${reviseRows('updated', '$7', '$8', '$9::uuid', '$11::uuid')})
         select ${ROW_FIELDS} from updated`,
  values: [id, data, status, slug, publishAt, publishes, revision.action, revision.actor?.type ?? null, revision.actor?.id ?? null, clearsDraft, revision.releaseId ?? null],
});

/** One row's change in updateRows: what updateRow sets, and its revision's action and actor. */
export interface RowUpdate {
  id: string;
  data: Record<string, unknown>;
  status: ContentStatus;
  slug: string | null;
  publishAt: Date | null;
  publishes: boolean;
  clearsDraft: boolean;
  action: RevisionAction;
  actor: Actor | null;
}

/** CONTENTS_COLUMNS of the row aliased `c` (the update below joins its input, whose names clash). */
const OF_C = CONTENTS_COLUMNS.replace(/(^|, )/g, '$1c.');

/**
 * updateRow for many rows at once (a release's slice, an import's matched rows): one statement
 * whatever their number, the rows travelling as one JSON array, each revision naming
 * `releaseId`. Returns the rows, in no order; `idsOnly`: their ids only (an import needs no more).
 */
export const updateRows = (rows: RowUpdate[], releaseId: string | null, idsOnly = false): SqlQuery => ({
  name: `contents.update.many${idsOnly ? '.ids' : ''}`,
  text: `with input as (
           select * from jsonb_to_recordset($1::jsonb) as r(
             id uuid, data jsonb, status text, slug text, publish_at timestamptz, publishes boolean, clears_draft boolean,
             action text, actor_type text, actor_id uuid)
         ), updated as (
           update contents c set data = i.data, status = i.status, slug = i.slug, publish_at = i.publish_at,
                  published_at = case when i.publishes then now() else c.published_at end, updated_at = now(), version = c.version + 1,
                  draft = case when i.clears_draft then null else c.draft end
             from input i where c.id = i.id
           returning ${OF_C}, i.action, i.actor_type, i.actor_id
         ), revised as (${reviseRows('updated', 'action', 'actor_type', 'actor_id', '$2::uuid')})
         select ${idsOnly ? 'id::text as id' : ROW_FIELDS} from updated`,
  values: [
    jsonbArray(
      rows.map((r) =>
        JSON.stringify({
          id: r.id,
          data: r.data,
          status: r.status,
          slug: r.slug,
          publish_at: r.publishAt,
          publishes: r.publishes,
          clears_draft: r.clearsDraft,
          action: r.action,
          actor_type: r.actor?.type ?? null,
          actor_id: r.actor?.id ?? null,
        }),
      ),
    ),
    releaseId,
  ],
});

export const deleteRow = (id: string): SqlQuery => ({ text: 'delete from contents where id = $1', values: [id] });

const ADD_TO_COUNTER = `insert into contents_count (table_id, status, shard, count, version)`;
const ON_COUNTER = `on conflict (table_id, status, shard) do update
         set count = contents_count.count + excluded.count, version = contents_count.version + 1`;

/**
 * Counts the rows of `relation` (a CTE of new rows) in, on shard `shard` (a parameter). Counter
 * rows are taken in one order, so two batches that span the same tables cannot deadlock on them.
 */
const countNewRows = (relation: string, shard: string) =>
  `${ADD_TO_COUNTER} select table_id, status, ${shard}, count(*), 1 from ${relation}
     group by table_id, status order by table_id, status ${ON_COUNTER}`;

/**
 * Adds `deltas` to the counters of `statuses` of a table, on one shard, taking the counter rows
 * in status order (see recordChange in counts.ts).
 */
export const addToCounters = (tableId: string, shard: number, statuses: ContentStatus[], deltas: number[]): SqlQuery => ({
  text: `${ADD_TO_COUNTER} select $1::uuid, status, $2::int, delta, 1 from unnest($3::text[], $4::int[]) as change(status, delta)
             order by status ${ON_COUNTER}`,
  values: [tableId, shard, statuses, deltas],
});

/**
 * Inserts new rows, their count changes and their events in one statement: atomic without a
 * transaction. The rows travel as one JSON array (one parameter, one parse), so the statement's
 * text is the same for one row or a hundred and is prepared once per connection. `shard`: the
 * counter shard the rows are counted on. `skipTaken`: rows whose unique value (slug or a unique
 * column) is taken are left out of the answer instead of failing the statement. `idsOnly`:
 * answers the inserted rows' ids only (an import needs no more, and 1,000 rows of data to parse
 * for nothing were a large share of its memory).
 */
export function insertContents(rows: NewRow[], skipTaken: boolean, shard: number, idsOnly = false): SqlQuery {
  return insertContentsJson(jsonbArray(rows.map(newRowJson)), skipTaken, shard, idsOnly);
}

/** A new row as one element of insertContents' input: its JSON text. */
export const newRowJson = ({ row, projectId, events, actor }: NewRow): string =>
  JSON.stringify({ ...row, project_id: projectId, events, actor_type: actor?.type, actor_id: actor?.id });

/** insertContents for rows already written as a jsonb array of newRowJson texts (an import's batch). */
export function insertContentsJson(rows: Buffer, skipTaken: boolean, shard: number, idsOnly = false): SqlQuery {
  return {
    name: `contents.create${skipTaken ? '.batch' : ''}${idsOnly ? '.ids' : ''}`,
    text: `with input as (
             select * from jsonb_to_recordset($1::jsonb) as r(
               id uuid, project_id uuid, table_id uuid, status text, slug text, data jsonb,
               publish_at timestamptz, published_at timestamptz, created_at timestamptz, events jsonb,
               actor_type text, actor_id uuid)
           ), inserted as (
             insert into contents (id, project_id, table_id, status, slug, data, publish_at, published_at, created_at, updated_at)
             select id, project_id, table_id, status, slug, data, publish_at, published_at, created_at, created_at from input
             ${skipTaken ? 'on conflict do nothing' : ''}
             returning ${CONTENTS_COLUMNS}
           ), counted as (${countNewRows('inserted', '$2')}
           ), revised as (
             insert into contents_revision (row_id, version, action, status, data, actor_type, actor_id, created_at)
             select id, 1, 'created', inserted.status, inserted.data, input.actor_type, input.actor_id, inserted.created_at
               from inserted join input using (id)
           ), outboxed as (
             insert into event_outbox (id, payload)
             select (e.event->>'id')::uuid, e.event
               from input join inserted using (id) cross join jsonb_array_elements(input.events) as e(event)
           )
           select ${idsOnly ? 'id' : '*'} from inserted`,
    values: [rows, shard],
  };
}
