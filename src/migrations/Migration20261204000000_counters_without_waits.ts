import { Migration } from '@mikro-orm/migrations';

/**
 * Change counters that a writer never waits for (docs/performance.md#what-a-conditional-read-costs).
 *
 * A scope's counter (`cache_version`) is spread over shard rows, and each row stays locked by
 * the transaction that counted it up until that transaction ends. The shard used to be the
 * writing transaction's id modulo 16, so two transactions on the same shard that wrote two
 * tables in opposite orders each held one table's row and waited for the other's: a deadlock
 * (seen between transactions that each wrote a row of two tables, as a release publish does).
 *
 * `cache_count_up` now takes, per scope, a row no other transaction holds (`for update skip
 * locked`), preferring the one the transaction's id names (so the statements of one transaction
 * mostly reuse one row), and adds a row only when none is free: a scope has as many rows as it
 * had concurrent writers at most. Readers sum a scope's rows, so which row counts a write does
 * not matter.
 *
 * The change log's trigger, which calls it, also stops joining an update's old and new rows
 * with a nested loop (docs/performance.md#releases).
 */
export class Migration20261204000000_counters_without_waits extends Migration {
  override name = 'Migration20261204000000_counters_without_waits';

  override up(): void {
    this.addSql(`
      -- Counts each scope up by one, on a row of the scope no other transaction holds.
      create function cache_count_up(scopes text[]) returns void language plpgsql as $$
      declare
        own smallint := (pg_current_xact_id()::text::bigint % 32768)::smallint;
        s text;
        free tid;
      begin
        foreach s in array coalesce(scopes, '{}') loop
          select ctid into free from cache_version where scope = s
           order by shard = own desc limit 1 for update skip locked;
          if found then
            update cache_version set version = version + 1 where ctid = free;
          else
            -- Every row of the scope is held by other writers, or it has none yet: a row of
            -- this transaction's own (its id picks one of 32,768, which nobody else holds but by
            -- a rare chance). A scope so gets as many rows as it has concurrent writers.
            insert into cache_version (scope, shard, version) values (s, own, 1)
            on conflict (scope, shard) do update set version = cache_version.version + 1;
          end if;
        end loop;
      end $$;

      create or replace function cache_touch(scopes text[], keys text[]) returns void language plpgsql as $$
      begin
        perform cache_count_up(array(select distinct s from unnest(scopes) as s order by s));
        if cardinality(keys) > 0 then
          insert into cache_purge (keys) values (keys);
          perform pg_notify('tabula_cache_purge', '');
        end if;
      end $$;

      -- The change log's trigger (same rows logged and purged as before), counting up the tables it logged without waiting.
      -- Without nested loops: the planner takes a transition table for one row, and joined
      -- old_rows to new_rows by comparing every pair (250 rows: 62,500 pairs, 17 ms).
      create or replace function contents_log_change() returns trigger language plpgsql set enable_nestloop = off as $$
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
        perform cache_count_up(array(select 't:' || t from unnest(written) as t));
        if cardinality(ids) > 0 then
          perform contents_cache_purge(tables, ids);
        end if;
        return null;
      end $$;
    `);
  }
}
