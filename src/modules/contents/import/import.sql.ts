import type { SqlQuery } from '../../../db/sql.js';
import type { Actor, RevisionAction } from '../revision-types.js';
import { CONTENTS_COLUMNS, type ContentsRow } from '../contents.row.js';
import { countNewRows } from '../contents.sql.js';
import type { ContentStatus } from '../../tables/table.entity.js';

/* The statements of imports (SPEC §15) that single writes do not have. */

/** Slugs of a table that are one of `bases` or `base-N`: what a derived slug must avoid. */
export const slugsLikeAny = (tableId: string, bases: string[]): SqlQuery => ({
  text: `select slug from contents where table_id = $1 and slug is not null
            and (slug = any($2) or substring(slug from '^(.*)-[0-9]+$') = any($2))`,
  values: [tableId, bases],
});

/** ISO text: node-postgres would format each Date of an array in local time, a slow path. */
const iso = (t: Date | string | null): string | null => (t instanceof Date ? t.toISOString() : t);

/**
 * Inserts a batch of an import's new rows of one table, their count and their `created`
 * revisions, in one statement; answers the ids inserted. Rows whose unique value (id, slug, a
 * unique column) is taken are left out (`on conflict do nothing`): the caller retries them one
 * by one to name the field. The values travel as one array per field and the data as one JSON
 * array, zipped by ROWS FROM: no per-row object on either side (contents.sql's insertContents
 * sends a JSON object per row, which PostgreSQL parses and then takes apart again), and the
 * text is the same for every batch, so it is prepared once per connection.
 */
export const insertImportedRows = (projectId: string, tableId: string, rows: ContentsRow[], actor: Actor | null, shard: number): SqlQuery => ({
  name: 'contents.import.insert',
  text: `with inserted as (
           insert into contents (id, project_id, table_id, status, slug, data, publish_at, published_at, created_at, updated_at)
           select r.id, $1, $2, r.status, r.slug, r.data, r.publish_at, r.published_at, r.created_at, r.created_at
             from rows from (unnest($3::uuid[]), unnest($4::text[]), unnest($5::text[]), jsonb_array_elements($6::jsonb),
                             unnest($7::timestamptz[]), unnest($8::timestamptz[]), unnest($9::timestamptz[]))
                  as r(id, status, slug, data, publish_at, published_at, created_at)
           on conflict do nothing
           returning id, table_id, status, data, created_at
         ), counted as (${countNewRows('inserted', '$10')}
         ), revised as (
           insert into contents_revision (row_id, version, action, status, data, actor_type, actor_id, created_at)
           select id, 1, 'created', status, data, $11, $12::uuid, created_at from inserted
         )
         select id from inserted`,
  values: [
    projectId,
    tableId,
    rows.map((r) => r.id),
    rows.map((r) => r.status),
    rows.map((r) => r.slug),
    `[${rows.map((r) => JSON.stringify(r.data)).join(',')}]`,
    rows.map((r) => iso(r.publish_at)),
    rows.map((r) => iso(r.published_at)),
    rows.map((r) => iso(r.created_at)),
    shard,
    actor?.type ?? null,
    actor?.id ?? null,
  ],
});

/** The rows an upsert may update, by id or by slug, locked until the import ends. */
export const rowsToUpsert = (tableId: string, ids: string[], slugs: string[]): SqlQuery => ({
  text: `select ${CONTENTS_COLUMNS} from contents where table_id = $1 and (id = any($2::uuid[]) or slug = any($3)) for update`,
  values: [tableId, ids, slugs],
});

export interface ImportedUpdate {
  id: string;
  data: Record<string, unknown>;
  status: ContentStatus;
  slug: string | null;
  publishAt: Date | null;
  publishes: boolean;
  action: RevisionAction;
}

/** Updates a batch of rows (their data, status and slug) and records their revisions, in one statement. */
export const updateImportedRows = (rows: ImportedUpdate[], actor: Actor | null): SqlQuery => ({
  text: `with input as (
           select * from jsonb_to_recordset($1::jsonb) as r(id uuid, data jsonb, status text, slug text, publish_at timestamptz, publishes boolean, action text)
         ), updated as (
           update contents c set data = i.data, status = i.status, slug = i.slug, publish_at = i.publish_at,
                  published_at = case when i.publishes then now() else c.published_at end, updated_at = now(), version = c.version + 1
             from input i where c.id = i.id
           returning c.id, c.version, c.status, c.data, c.updated_at, i.action
         ), revised as (
           insert into contents_revision (row_id, version, action, status, data, actor_type, actor_id, created_at)
           select id, version, action, status, data, $2, $3::uuid, updated_at from updated
         )
         select id::text from updated`,
  values: [
    JSON.stringify(rows.map((r) => ({ id: r.id, data: r.data, status: r.status, slug: r.slug, publish_at: r.publishAt, publishes: r.publishes, action: r.action }))),
    actor?.type ?? null,
    actor?.id ?? null,
  ],
});
