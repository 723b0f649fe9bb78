import { Migration } from '@mikro-orm/migrations';

/**
 * The HTTP caching of contents rows (Migration20261202040000_http_cache) folded into the change
 * log's triggers (Migration20261125010000_contents_changes), which fire on the same statements:
 * one statement trigger per write instead of two (docs/performance.md#what-a-conditional-read-costs).
 *
 * - The table's change counter (`t:<tableId>` in `cache_version`) is counted up by the same
 *   statement that logs the change, from the table ids it logged (`returning`): the transition
 *   table is read once for both, and no second PL/pgSQL function runs per write.
 * - The purge of `r:<rowId>` and `l:<tableId>` (`t:<tableId>` over 500 rows) is queued, with its
 *   notification, only when a read key could see the difference, as before; a statement that
 *   only writes rows no read key sees (drafts, new unpublished rows) does nothing more.
 * - The shard counted up is still the writing transaction's (its id modulo 16), so the
 *   statements of one transaction update one row per table and two transactions cannot each hold
 *   a shard the other waits for.
 */
export class Migration20261203010000_cache_in_change_log extends Migration {
  override name = 'Migration20261203010000_cache_in_change_log';

  override up(): void {
    this.addSql(`
      drop trigger contents_cache_insert on contents;
      drop trigger contents_cache_update on contents;
      drop trigger contents_cache_delete on contents;
      drop function contents_cache_touch();

      -- Queues the purge of the rows a read key could see change (ids of rows of tables), and wakes the purge worker.
      create function contents_cache_purge(tables uuid[], ids uuid[]) returns void language plpgsql as $$
      declare
        keys text[];
      begin
        if cardinality(ids) > 500 then
          select array_agg(distinct 't:' || t) into keys from unnest(tables) as t;
        else
          select array_agg(k) into keys from (
            select distinct 'l:' || t as k from unnest(tables) as t
            union all select 'r:' || i from unnest(ids) as i) k;
        end if;
        insert into cache_purge (keys) values (keys);
        perform pg_notify('tabula_cache_purge', '');
      end $$;

      -- The change log's trigger (same rows logged as before), counting up the tables it logged.
      create or replace function contents_log_change() returns trigger language plpgsql as $$
      declare
        written uuid[];
        tables uuid[];
        ids uuid[];
      begin
        if TG_OP = 'INSERT' then
          if (select count(*) from (select 1 from new_rows limit 257) n) > 256 then
            with logged as (insert into contents_change (table_id) select distinct table_id from new_rows returning table_id)
            select array_agg(distinct table_id) into written from logged;
          else
            with logged as (insert into contents_change (table_id, new) select n.table_id, contents_change_image(n) from new_rows n returning table_id)
            select array_agg(distinct table_id) into written from logged;
          end if;
          select array_agg(table_id), array_agg(id) into tables, ids from new_rows where status = 'PUBLISHED';
        elsif TG_OP = 'UPDATE' then
          if (select count(*) from (select 1 from new_rows limit 257) n) > 256 then
            with logged as (insert into contents_change (table_id) select distinct table_id from new_rows returning table_id)
            select array_agg(distinct table_id) into written from logged;
          else
            with logged as (
              insert into contents_change (table_id, old, new)
              select n.table_id, contents_change_image(o), contents_change_image(n) from old_rows o join new_rows n using (id)
              returning table_id)
            select array_agg(distinct table_id) into written from logged;
          end if;
          select array_agg(n.table_id), array_agg(n.id) into tables, ids
            from old_rows o join new_rows n using (id)
           where (o.status = 'PUBLISHED' or n.status = 'PUBLISHED')
             and row(o.status, o.slug, o.data, o.version, o.published_at, o.publish_at, o.updated_at, o.table_id)
                 is distinct from row(n.status, n.slug, n.data, n.version, n.published_at, n.publish_at, n.updated_at, n.table_id);
        else
          if (select count(*) from (select 1 from old_rows limit 257) o) > 256 then
            with logged as (insert into contents_change (table_id) select distinct table_id from old_rows returning table_id)
            select array_agg(distinct table_id) into written from logged;
          else
            with logged as (insert into contents_change (table_id, old) select o.table_id, contents_change_image(o) from old_rows o returning table_id)
            select array_agg(distinct table_id) into written from logged;
          end if;
          select array_agg(table_id), array_agg(id) into tables, ids from old_rows where status = 'PUBLISHED';
        end if;
        -- On the writing transaction's shard, tables in order (array_agg(distinct) sorts them).
        insert into cache_version (scope, shard, version)
        select 't:' || t, (pg_current_xact_id()::text::bigint % 16)::smallint, 1 from unnest(written) as t
        on conflict (scope, shard) do update set version = cache_version.version + 1;
        if cardinality(ids) > 0 then
          perform contents_cache_purge(tables, ids);
        end if;
        return null;
      end $$;
    `);
  }
}
