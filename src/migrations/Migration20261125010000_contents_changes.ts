import { Migration } from '@mikro-orm/migrations';

/**
 * The change log that keeps every API process's cached lists exact without throwing them away
 * on each write (src/modules/contents/list-cache/). Statement triggers on `contents` record each
 * changed row's image before and after, in the writing transaction, with that transaction's id:
 * no writer (API, worker, purge, schema change) can forget to. A statement touching more than
 * 256 rows (a schema change rewriting a table, a purge batch) records one row with neither image
 * instead: "recompute everything of this table". Readers ask for the changes committed since
 * their last snapshot; a worker deletes what every reader has seen.
 */
export class Migration20261125010000_contents_changes extends Migration {
  override name = 'Migration20261125010000_contents_changes';

  override up(): void {
    this.addSql(`
      create table contents_change (
        table_id uuid not null,
        xid xid8 not null default pg_current_xact_id(),
        old jsonb null,
        new jsonb null
      );
      create index contents_change_table_xid on contents_change (table_id, xid);

      -- Timestamps as fixed-width UTC text with microseconds: the form list cursors use.
      create function contents_change_image(c contents) returns jsonb language sql stable as $$
        select jsonb_build_object(
          'id', c.id, 'status', c.status, 'slug', c.slug, 'data', c.data,
          'createdAt', to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'updatedAt', to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'publishedAt', to_char(c.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'publishAt', to_char(c.publish_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
      $$;

      -- One function for the three triggers: each names only the transition tables its event has.
      create function contents_log_change() returns trigger language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          if (select count(*) from (select 1 from new_rows limit 257) n) > 256 then
            insert into contents_change (table_id) select distinct table_id from new_rows;
          else
            insert into contents_change (table_id, new) select n.table_id, contents_change_image(n) from new_rows n;
          end if;
        elsif TG_OP = 'UPDATE' then
          if (select count(*) from (select 1 from new_rows limit 257) n) > 256 then
            insert into contents_change (table_id) select distinct table_id from new_rows;
          else
            insert into contents_change (table_id, old, new)
            select n.table_id, contents_change_image(o), contents_change_image(n) from old_rows o join new_rows n using (id);
          end if;
        elsif (select count(*) from (select 1 from old_rows limit 257) o) > 256 then
          insert into contents_change (table_id) select distinct table_id from old_rows;
        else
          insert into contents_change (table_id, old) select o.table_id, contents_change_image(o) from old_rows o;
        end if;
        return null;
      end $$;

      create trigger contents_log_insert after insert on contents
        referencing new table as new_rows for each statement execute function contents_log_change();
      create trigger contents_log_update after update on contents
        referencing old table as old_rows new table as new_rows for each statement execute function contents_log_change();
      create trigger contents_log_delete after delete on contents
        referencing old table as old_rows for each statement execute function contents_log_change();
    `);
  }
}
