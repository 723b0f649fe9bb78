import { Migration } from '@mikro-orm/migrations';
import { referenceIndexStatements, searchIndexStatements, type StoredColumn } from './frozen/20261125020000-search.js';

/**
 * Full-text search (docs/contents.md#search). `contents_search_text` is the text a localized column
 * contributes to a row's search document: every locale's value, cut to 100,000 characters (a
 * tsvector holds at most 1 MB, and a text value may be as long as a request body). Then every
 * live table gets the GIN indexes of its search document, as the columns module keeps them from
 * now on (its searchIndexStatements), and every reference and file column the statistics the
 * planner needs for filters through it (its createIndexStatements). The statements are frozen
 * copies of the columns module's (frozen/20261125020000-search.ts), so that later changes to the
 * module do not change what this migration creates.
 */
export class Migration20261125020000_search extends Migration {
  override name = 'Migration20261125020000_search';

  override async up(): Promise<void> {
    await this.execute(`
      create function contents_search_text(value jsonb) returns text language sql immutable parallel safe as $$
        select left(case jsonb_typeof(value)
                      when 'string' then value #>> '{}'
                      when 'object' then (select string_agg(v, ' ') from jsonb_each_text(value) as e(k, v))
                    end, 100000)
      $$;
    `);
    const tables = (await this.execute(
      `select t.id, p.locales,
              coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'name', c.name, 'type', c.type, 'settings', c.settings) order by c.position)
                         filter (where c.id is not null), '[]') as columns
         from content_table t
         join project p on p.id = t.project_id
         left join content_column c on c.table_id = t.id and c.deleted_at is null
        where t.deleted_at is null
        group by t.id, p.locales`,
    )) as { id: string; locales: string[]; columns: StoredColumn[] }[];
    for (const table of tables) {
      for (const statement of searchIndexStatements(table, table.locales)) await this.execute(statement);
      // Only what is missing is created: every statement is `if not exists`.
      for (const column of table.columns.filter((c) => c.type === 'reference' || c.type === 'file')) {
        for (const statement of referenceIndexStatements(table.id, column)) await this.execute(statement);
      }
    }
  }

  override async down(): Promise<void> {
    await this.execute(`
      do $$ declare r record; begin
        for r in select indexname from pg_indexes where tablename = 'contents' and indexname like 's\\_%'
        loop execute format('drop index if exists %I', r.indexname); end loop;
      end $$;
      drop function contents_search_text(jsonb);
    `);
  }
}
