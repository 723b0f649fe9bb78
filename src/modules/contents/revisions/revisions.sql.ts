import type { SqlQuery } from '../../../db/sql.js';
import type { Actor, RevisionAction } from './actions.js';

/*
 * Revisions (docs/contents.md#revisions) are written by the statement that changes the row, as a CTE on the rows
 * it returns (`version` is the row's new version): a create or an update stays one round trip.
 */

const REVISION_COLUMNS = 'row_id, version, action, status, data, actor_type, actor_id, created_at';

/**
 * `insert into contents_revision` of every row of `relation` (a CTE returning `id`, `version`,
 * `status`, `data`, `updated_at`), with the action and actor given as SQL expressions.
 */
export const reviseRows = (relation: string, action: string, actorType: string, actorId: string, releaseId = 'null::uuid') =>
  `insert into contents_revision (${REVISION_COLUMNS}, release_id)
   select id, version, ${action}, status, data, ${actorType}, ${actorId}, updated_at, ${releaseId} from ${relation}`;

/** The actor of a row's newest revision (who scheduled what the worker now publishes). */
export const lastActor = (row: string, field: 'actor_type' | 'actor_id') =>
  `(select r.${field} from contents_revision r where r.row_id = ${row} order by r.version desc limit 1)`;

export interface RevisionRow {
  version: number;
  action: RevisionAction;
  status: string;
  data: Record<string, unknown>;
  actor_type: Actor['type'] | null;
  actor_id: string | null;
  /** The release that made the change (docs/releases.md), null for a single write. */
  release_id: string | null;
  created_at: Date | string;
}

/** A row's revisions, newest first, one page (`limit` may ask one more, for `hasNext`). */
export const revisionsOf = (rowId: string, limit: number, offset: number): SqlQuery => ({
  name: 'contents.revisions',
  text: `select version, action, status, data, actor_type, actor_id, release_id, created_at from contents_revision
          where row_id = $1 order by version desc limit $2 offset $3`,
  values: [rowId, limit, offset],
});

/**
 * Retention: of the rows that got a revision past `keep` since `since`, the revisions older than
 * their newest `keep` are deleted. Answers how many.
 */
export const purgeOldRevisions = (keep: number, since: Date): SqlQuery => ({
  text: `with over as (
           select distinct r.row_id from contents_revision r where r.created_at >= $2 and r.version > $1
         ), deleted as (
           delete from contents_revision d using over, contents c
            where d.row_id = over.row_id and c.id = over.row_id and d.version <= c.version - $1
           returning 1
         )
         select count(*)::int as deleted from deleted`,
  values: [keep, since],
});

/**
 * How many revisions a row has, from two index probes instead of a count: a row's versions are
 * contiguous (each change writes the next one, retention deletes the oldest), so the number is
 * newest - oldest + 1 however many there are.
 */
export const revisionHead = (rowId: string, tableId: string): SqlQuery => ({
  name: 'contents.revisions.head',
  text: `select exists (select 1 from contents where id = $1 and table_id = $2) as found,
                coalesce(max(version) - min(version) + 1, 0)::int as total
           from contents_revision where row_id = $1`,
  values: [rowId, tableId],
});

export const revisionOf = (rowId: string, version: number): SqlQuery => ({
  text: 'select version, action, status, data, actor_type, actor_id, release_id, created_at from contents_revision where row_id = $1 and version = $2',
  values: [rowId, version],
});
