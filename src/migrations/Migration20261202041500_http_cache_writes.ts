import { Migration } from '@mikro-orm/migrations';

/**
 * The writes of HTTP caching made cheaper (docs/performance.md#what-a-conditional-read-costs),
 * with the same triggers on the same tables and statements (every write path stays covered):
 *
 * - `contents_cache_touch` collects the rows a read key can see in arrays instead of a
 *   temporary table: creating one in each writing transaction (and dropping it at commit)
 *   wrote to the system catalogs on every write.
 * - `cache_touch` counts a scope up on the shard of the writing transaction (its id modulo 16)
 *   instead of a random one per statement: the statements of one transaction that touch the
 *   same scope update one row, so two transactions can no longer each hold one shard of a scope
 *   and wait for the other's (a deadlock); concurrent transactions still spread over 16 rows.
 */
export class Migration20261202041500_http_cache_writes extends Migration {
  override name = 'Migration20261202041500_http_cache_writes';

  override up(): void {
    this.addSql(`
      create or replace function cache_touch(scopes text[], keys text[]) returns void language plpgsql as $$
      declare
        pick smallint := (pg_current_xact_id()::text::bigint % 16)::smallint;
      begin
        if cardinality(scopes) > 0 then
          insert into cache_version (scope, shard, version)
          select s, pick, 1 from (select distinct s from unnest(scopes) as s) u order by s
          on conflict (scope, shard) do update set version = cache_version.version + 1;
        end if;
        if cardinality(keys) > 0 then
          insert into cache_purge (keys) values (keys);
          perform pg_notify('tabula_cache_purge', '');
        end if;
      end $$;

      -- Rows whose change a read key can see: PUBLISHED before or after, and more than the draft changed.
      create or replace function contents_cache_touch() returns trigger language plpgsql as $$
      declare
        scopes text[];
        keys text[];
        tables uuid[];
        ids uuid[];
      begin
        if TG_OP = 'INSERT' then
          select array_agg(distinct 't:' || table_id) into scopes from new_rows;
          select array_agg(table_id), array_agg(id) into tables, ids from new_rows where status = 'PUBLISHED';
        elsif TG_OP = 'UPDATE' then
          select array_agg(distinct 't:' || table_id) into scopes from new_rows;
          select array_agg(n.table_id), array_agg(n.id) into tables, ids
            from old_rows o join new_rows n using (id)
           where (o.status = 'PUBLISHED' or n.status = 'PUBLISHED')
             and row(o.status, o.slug, o.data, o.version, o.published_at, o.publish_at, o.updated_at, o.table_id)
                 is distinct from row(n.status, n.slug, n.data, n.version, n.published_at, n.publish_at, n.updated_at, n.table_id);
        else
          select array_agg(distinct 't:' || table_id) into scopes from old_rows;
          select array_agg(table_id), array_agg(id) into tables, ids from old_rows where status = 'PUBLISHED';
        end if;
        if cardinality(ids) > 500 then
          select array_agg(distinct 't:' || t) into keys from unnest(tables) as t;
        elsif cardinality(ids) > 0 then
          select array_agg(k) into keys from (
            select distinct 'l:' || t as k from unnest(tables) as t
            union all select 'r:' || i from unnest(ids) as i) k;
        end if;
        perform cache_touch(coalesce(scopes, '{}'), coalesce(keys, '{}'));
        return null;
      end $$;
    `);
  }
}
