import type { SqlQuery } from '../../../db/sql.js';
import { CONTENTS_COLUMNS } from '../rows/row.js';
import type { RowUpdate } from '../rows/rows.sql.js';

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

/** A matched row's update (rows.sql.ts updateRows, which writes it): the import's actor for all, no draft to clear. */
export type ImportedUpdate = Omit<RowUpdate, 'clearsDraft' | 'actor'>;
