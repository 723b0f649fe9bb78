import { Migration } from '@mikro-orm/migrations';

/**
 * Number, integer and boolean columns are now indexed (and queried) through a cast guarded by
 * the value's JSON type (see `columnExpression`): an unguarded cast failed index builds on dead
 * row versions holding another column's value, and statistics sampled from other tables. This
 * rebuilds the existing columns' sort and unique indexes and statistics with the new expression.
 */
export class Migration20261122100000_guarded_casts extends Migration {
  override name = 'Migration20261122100000_guarded_casts';

  override up(): void {
    this.addSql(`
      do $$
      declare
        r record;
        expr text;
        base text;
      begin
        for r in
          select c.id, c.table_id, c.name, c.type, c.settings
            from content_column c join content_table t on t.id = c.table_id
           where c.deleted_at is null and t.deleted_at is null and c.type in ('number', 'integer', 'boolean')
        loop
          expr := format('(case when jsonb_typeof(data->%L) = %L then (data->>%L)::%s end)',
                         r.name, case when r.type = 'boolean' then 'boolean' else 'number' end, r.name,
                         case when r.type = 'boolean' then 'boolean' else 'float8' end);
          base := 'c_' || replace(r.id::text, '-', '');
          execute format('drop index if exists %I', base || '_s');
          execute format('drop index if exists %I', base || '_u');
          execute format('drop statistics if exists %I', base || '_x');
          execute format('create index %I on contents (%s, id) where table_id = %L', base || '_s', expr, r.table_id);
          if coalesce(r.settings->>'unique', 'false') = 'true' then
            execute format('create unique index %I on contents (%s) where table_id = %L', base || '_u', expr, r.table_id);
          end if;
          execute format('create statistics %I on %s from contents', base || '_x', expr);
        end loop;
      end $$;
    `);
  }
}
