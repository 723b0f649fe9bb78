import type { SqlQuery } from '../../../db/sql.js';

/* The statements of the GIN pending-list merging of imports (gin-pending.ts). */

/** The import's own pending list may grow this far when the merging falls behind. */
export const IMPORT_PENDING_LIST_LIMIT: SqlQuery = { text: `set local gin_pending_list_limit = '256MB'`, values: [] };

/** The GIN indexes of one table (partial indexes of `contents` on its id). */
export const ginIndexesOf = (tableId: string): SqlQuery => ({
  text: `select i.indexrelid::regclass::text as name
           from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
          where i.indrelid = 'contents'::regclass and a.amname = 'gin' and i.indpred is not null
            and pg_get_expr(i.indpred, i.indrelid) = $1`,
  values: [`(table_id = '${tableId}'::uuid)`],
});

/** Merges an index's pending list into it; answers how many pending pages it emptied. */
export const cleanPendingList = (index: string): SqlQuery => ({ text: 'select gin_clean_pending_list($1::regclass) as pages', values: [index] });
