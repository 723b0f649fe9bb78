import { Migration } from '@mikro-orm/migrations';

/**
 * HTTP caching (docs/scaling-out.md#http-caches-and-purging). Triggers, so that no writer (API,
 * worker, import, schema change, purge) can forget them, record in the writing transaction:
 *
 * - `cache_version`: a change counter per scope, spread over 16 rows per scope like
 *   `contents_count` (concurrent writers rarely wait for each other). Scopes: `t:<tableId>` (the
 *   table's rows, drafts included), `m:<projectId>` (what shapes every answer of the project:
 *   tables, columns, roles, keys, members, the project's locales), `c:`, `v:`, `i:`, `f:<projectId>`
 *   (categories, variables, translations, files). An answer's ETag is computed from the sums
 *   of the scopes it depends on, without reading the rows it is made of.
 * - `cache_purge`: the surrogate keys a CDN must forget once the transaction commits (read by
 *   the `cdn-purge` worker; a row appears only at commit, so no purge can precede its commit).
 *   Rows changes purge `r:<rowId>` and `l:<tableId>` (lists) only when a read key could see
 *   the difference (the row is or was PUBLISHED); more than 500 rows at once purge `t:<tableId>`.
 *   Anything else of the project purges its own key; schema, keys (a revoked key's cached
 *   answers go) and the project `p:<projectId>`. Roles and members change only what is never
 *   shared (custom roles' and accounts' answers): their counter moves, nothing is purged.
 */
export class Migration20261202040000_http_cache extends Migration {
  override name = 'Migration20261202040000_http_cache';

  override up(): void {
    this.addSql(`
      create table cache_version (
        scope text not null,
        shard smallint not null,
        version bigint not null,
        primary key (scope, shard)
      );
      create table cache_purge (
        id bigint generated always as identity primary key,
        keys text[] not null,
        created_at timestamptz not null default now()
      );

      -- Counts the scopes up (one random shard each, taken in scope order) and queues the keys.
      create function cache_touch(scopes text[], keys text[]) returns void language plpgsql as $$
      begin
        if cardinality(scopes) > 0 then
          insert into cache_version (scope, shard, version)
          select s, floor(random() * 16)::smallint, 1 from (select distinct s from unnest(scopes) as s) u order by s
          on conflict (scope, shard) do update set version = cache_version.version + 1;
        end if;
        if cardinality(keys) > 0 then
          insert into cache_purge (keys) values (keys);
          perform pg_notify('tabula_cache_purge', '');
        end if;
      end $$;

      -- Rows whose change a read key can see: PUBLISHED before or after, and more than the draft changed.
      create function contents_cache_touch() returns trigger language plpgsql as $$
      declare
        scopes text[];
        keys text[];
      begin
        create temporary table if not exists cache_seen (table_id uuid, id uuid) on commit drop;
        truncate cache_seen;
        if TG_OP = 'INSERT' then
          select array_agg(distinct 't:' || table_id) into scopes from new_rows;
          insert into cache_seen select table_id, id from new_rows where status = 'PUBLISHED';
        elsif TG_OP = 'UPDATE' then
          select array_agg(distinct 't:' || table_id) into scopes from new_rows;
          insert into cache_seen
          select n.table_id, n.id from old_rows o join new_rows n using (id)
           where (o.status = 'PUBLISHED' or n.status = 'PUBLISHED')
             and row(o.status, o.slug, o.data, o.version, o.published_at, o.publish_at, o.updated_at, o.table_id)
                 is distinct from row(n.status, n.slug, n.data, n.version, n.published_at, n.publish_at, n.updated_at, n.table_id);
        else
          select array_agg(distinct 't:' || table_id) into scopes from old_rows;
          insert into cache_seen select table_id, id from old_rows where status = 'PUBLISHED';
        end if;
        if (select count(*) from (select 1 from cache_seen limit 501) s) > 500 then
          select array_agg(distinct 't:' || table_id) into keys from cache_seen;
        else
          select array_agg(k) into keys from (
            select distinct 'l:' || table_id as k from cache_seen
            union all select 'r:' || id from cache_seen) k;
        end if;
        perform cache_touch(coalesce(scopes, '{}'), coalesce(keys, '{}'));
        return null;
      end $$;

      create trigger contents_cache_insert after insert on contents
        referencing new table as new_rows for each statement execute function contents_cache_touch();
      create trigger contents_cache_update after update on contents
        referencing old table as old_rows new table as new_rows for each statement execute function contents_cache_touch();
      create trigger contents_cache_delete after delete on contents
        referencing old table as old_rows for each statement execute function contents_cache_touch();

      -- The project's other data, row by row (rare writes). TG_ARGV: scope prefix, key prefix ('': none),
      -- and where the project id is: a column of the row, or the row's table (content_column).
      create function project_cache_touch() returns trigger language plpgsql as $$
      declare
        image jsonb := to_jsonb(coalesce(new, old));
        project text;
      begin
        if TG_ARGV[2] = 'table_id' then
          select t.project_id::text into project from content_table t where t.id = (image->>'table_id')::uuid;
        else
          project := image->>TG_ARGV[2];
        end if;
        if project is not null then
          -- No key: nothing a shared cache holds (read keys' answers) depends on it.
          perform cache_touch(array[TG_ARGV[0] || project], case when TG_ARGV[1] = '' then '{}'::text[] else array[TG_ARGV[1] || project] end);
        end if;
        return null;
      end $$;

      create trigger project_cache_touch after insert or update or delete on content_table
        for each row execute function project_cache_touch('m:', 'p:', 'project_id');
      create trigger project_cache_touch after insert or update or delete on content_column
        for each row execute function project_cache_touch('m:', 'p:', 'table_id');
      create trigger project_cache_touch after insert or update or delete on role
        for each row execute function project_cache_touch('m:', '', 'project_id');
      -- Not on last_used_at, written as keys are used.
      create trigger project_cache_touch
        after insert or delete or update of permission, role_id, allowed_hosts, active, expires_at, key_hash, previous_key_hash, previous_expires_at on api_key
        for each row execute function project_cache_touch('m:', 'p:', 'project_id');
      create trigger project_cache_touch after insert or update or delete on project_member
        for each row execute function project_cache_touch('m:', '', 'project_id');
      create trigger project_cache_touch after update or delete on project
        for each row execute function project_cache_touch('m:', 'p:', 'id');
      create trigger project_cache_touch after insert or update or delete on category
        for each row execute function project_cache_touch('c:', 'c:', 'project_id');
      create trigger project_cache_touch after insert or update or delete on variable
        for each row execute function project_cache_touch('v:', 'v:', 'project_id');
      create trigger project_cache_touch after insert or update or delete on translation
        for each row execute function project_cache_touch('i:', 'i:', 'project_id');
      create trigger project_cache_touch after insert or update or delete on file
        for each row execute function project_cache_touch('f:', 'f:', 'project_id');
    `);
  }
}
