import type { SqlQuery } from '../../db/sql.js';

/*
 * The statements of column changes and checks. Values that name a column's key in `data` are
 * parameters cast to text (`jsonb_exists`, not the `?` operator, as the indexes expect); the
 * expressions of the unique check come from the query engine, with their literals checked there.
 */

/**
 * Locks a table's row: one schema change per table at a time. `for no key update` leaves the
 * foreign-key checks of concurrent contents writes free (`for update` would make them wait,
 * and a schema change that then waits for one of those writers deadlocks).
 */
export const lockTable = (tableId: string): SqlQuery => ({
  text: 'select id from content_table where id = $1 for no key update',
  values: [tableId],
});

export const nextColumnPosition = (tableId: string): SqlQuery => ({
  text: 'select coalesce(max(position), 0) + 1 as next from content_column where table_id = $1',
  values: [tableId],
});

/** Gives every row of the table that lacks the column its (stored) default value. */
export const fillDefault = (tableId: string, name: string, storedJson: string): SqlQuery => ({
  text: 'update contents set data = data || jsonb_build_object($1::text, $2::jsonb) where table_id = $3 and not jsonb_exists(data, $1::text)',
  values: [name, storedJson, tableId],
});

/** Moves a column's values to its new key in every row of the table. */
export const renameValues = (tableId: string, from: string, to: string): SqlQuery => ({
  text: 'update contents set data = (data - $1::text) || jsonb_build_object($2::text, data->$1::text) where table_id = $3 and jsonb_exists(data, $1::text)',
  values: [from, to, tableId],
});

/** Points the table's slug column at a renamed source column. */
export const renameSlugSource = (tableId: string, from: string, to: string): SqlQuery => ({
  text: `update content_column set settings = jsonb_set(settings, '{source}', to_jsonb($1::text))
          where table_id = $2 and deleted_at is null and type = 'slug' and settings->>'source' = $3`,
  values: [to, tableId, from],
});

/** Turns plain values of a column that becomes localized into the default locale's values. */
export const localizeValues = (tableId: string, name: string, defaultLocale: string): SqlQuery => ({
  text: `update contents set data = jsonb_set(data, array[$1::text], jsonb_build_object($2::text, data->$1::text))
          where table_id = $3 and jsonb_exists(data, $1::text) and jsonb_typeof(data->$1::text) <> 'object'`,
  values: [name, defaultLocale, tableId],
});

/** `contents.slug` mirrors the slug column `name`, or is null without one. */
export const mirrorSlug = (tableId: string, name: string | null): SqlQuery =>
  name === null
    ? { text: 'update contents set slug = null where table_id = $1', values: [tableId] }
    : { text: 'update contents set slug = data->>$1::text where table_id = $2', values: [name, tableId] };


/** A DDL statement of column.ddl.ts (its literals are checked there). */
export const ddl = (text: string): SqlQuery => ({ text, values: [] });

/** The first rows without a value (on a localized column: without the default locale's). */
export const rowsMissing = (tableId: string, name: string, shown: number, defaultLocale?: string): SqlQuery =>
  defaultLocale === undefined
    ? {
        text: 'select id from contents where table_id = $1 and (not jsonb_exists(data, $2::text)) order by id limit $3',
        values: [tableId, name, shown],
      }
    : {
        text: 'select id from contents where table_id = $1 and (not jsonb_exists(data, $2::text) or not jsonb_exists(data->$2::text, $4::text)) order by id limit $3',
        values: [tableId, name, shown, defaultLocale],
      };

/** The first rows sharing a value of `expression` with another row. */
export const rowsSharingValue = (tableId: string, expression: string, shown: number): SqlQuery => ({
  text: `select id from contents where table_id = $1 and ${expression} in (
           select ${expression} from contents where table_id = $1 and ${expression} is not null group by 1 having count(*) > 1)
         order by ${expression}, id limit $2`,
  values: [tableId, shown],
});

/** The next batch of rows holding a value of column `name`, in id order after `after`. */
export const valuesAfter = (tableId: string, name: string, after: string, batch: number): SqlQuery => ({
  text: 'select id, data->$1::text as value from contents where table_id = $2 and jsonb_exists(data, $1::text) and id > $3 order by id limit $4',
  values: [name, tableId, after, batch],
});
