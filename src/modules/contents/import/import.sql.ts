import type { SqlQuery } from '../../../db/sql.js';
import { jsonbArray } from '../../../db/jsonb-param.js';
import type { Actor, RevisionAction } from '../revisions/actions.js';
import { CONTENTS_COLUMNS } from '../rows/row.js';
import type { ContentStatus } from '../../tables/table.entity.js';

/* The statements of imports (docs/import-export.md#import) that single writes do not have. */

/** Slugs of a table that are one of `bases` or `base-N`: what a derived slug must avoid. */
export const slugsLikeAny = (tableId: string, bases: string[]): SqlQuery => ({
  text: `select slug from contents where table_id = $1 and slug is not null
            and (slug = any($2) or substring(slug from '^(.*)-[0-9]+$') = any($2))`,
  values: [tableId, bases],
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
    jsonbArray(rows.map((r) => JSON.stringify({ id: r.id, data: r.data, status: r.status, slug: r.slug, publish_at: r.publishAt, publishes: r.publishes, action: r.action }))),
    actor?.type ?? null,
    actor?.id ?? null,
  ],
});
