import { Migration } from '@mikro-orm/migrations';

/**
 * String columns (text, longtext, email, url, slug) are now indexed by a key that always fits
 * a btree entry (see `columnSortExpression` and `columnUniqueExpression`): the sort index holds
 * the value's first 256 characters and the unique index its md5. Indexing the whole value
 * failed inserts of a few KB of text (`index row size ... exceeds btree version 4 maximum`).
 * This rebuilds the existing string columns' sort and unique indexes with the new expressions,
 * one per locale for localized columns, under the same names.
 */
export class Migration20261125000000_text_keys extends Migration {
  override name = 'Migration20261125000000_text_keys';

  override up(): void {
    this.addSql(`
      do $$
      declare
        r record;
        loc text;
        expr text;
        tail text;
        base text;
      begin
        for r in
          select c.id, c.table_id, c.name, c.type, c.settings, p.locales
            from content_column c
            join content_table t on t.id = c.table_id
            join project p on p.id = t.project_id
           where c.deleted_at is null and t.deleted_at is null
             and c.type in ('text', 'longtext', 'email', 'url', 'slug')
             and coalesce(c.settings->>'multiple', 'false') <> 'true'
        loop
          base := 'c_' || replace(r.id::text, '-', '');
          foreach loc in array (case when coalesce(r.settings->>'localized', 'false') = 'true' then r.locales else array[null::text] end)
          loop
            if loc is null then
              expr := format('(data->>%L)', r.name);
              tail := '';
            else
              expr := format('(data->%L->>%L)', r.name, loc);
              tail := '_' || lower(replace(loc, '-', '_'));
            end if;
            execute format('drop index if exists %I', left(base || '_s' || tail, 63));
            execute format('create index %I on contents (left(%s, 256), id) where table_id = %L',
                           left(base || '_s' || tail, 63), expr, r.table_id);
            if coalesce(r.settings->>'unique', 'false') = 'true' and r.type <> 'slug' then
              execute format('drop index if exists %I', left(base || '_u' || tail, 63));
              execute format('create unique index %I on contents (md5(%s)) where table_id = %L',
                             left(base || '_u' || tail, 63), expr, r.table_id);
            end if;
          end loop;
        end loop;
      end $$;
    `);
  }
}
