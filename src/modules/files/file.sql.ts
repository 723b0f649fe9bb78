import type { SqlQuery } from '../../db/sql.js';

/** Rows of live tables whose live `file` columns hold `fileId` (alone or in a `multiple` array). */
export const fileReferenceCount = (projectId: string, fileId: string): SqlQuery => ({
  text: `select count(distinct r.id)::int as n
           from content_table t
           join content_column c on c.table_id = t.id and c.type = 'file' and c.deleted_at is null
           join contents r on r.table_id = t.id
          where t.project_id = $1 and t.deleted_at is null
            and (r.data -> c.name = to_jsonb($2::text) or r.data -> c.name @> jsonb_build_array($2::text))`,
  values: [projectId, fileId],
});
