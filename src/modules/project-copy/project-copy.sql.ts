import type { SqlQuery } from '../../db/sql.js';
import { sqlLiteral as literal } from '../../db/sql-literal.js';

/*
 * The statements of a project copy (docs/concepts.md#copying-a-project). Every one is set-based
 * (`insert … select`), in one repeatable-read transaction: each reads the source as it was when
 * the copy's first statement ran, whatever is written meanwhile. Old ids map to new ones through
 * temporary tables dropped at commit; references, drafts and column settings are rewritten
 * through them.
 */

/** Before any other statement: every later one reads the same snapshot. */
export const repeatableRead = (): SqlQuery => ({ text: 'set transaction isolation level repeatable read', values: [] });

/**
 * The live source project, locked `for share` until the copy commits: a delete of it waits for
 * the copy, and a delete (or change) committed after the copy's snapshot makes this statement
 * fail with a serialization error, which the copy retries.
 */
export const lockSourceProject = (projectId: string): SqlQuery => ({
  text: `select p.locales from project p join workspace w on w.id = p.workspace_id and w.deleted_at is null
          where p.id = $1 and p.deleted_at is null for share of p`,
  values: [projectId],
});

/**
 * The source's file rows, locked `for share`: deleting or replacing one waits for the copy, then
 * sees the copy's file rows holding the same bytes and keeps them (files/file.service.ts).
 */
export const lockSourceFiles = (projectId: string): SqlQuery => ({
  text: 'select count(*)::int as n from (select 1 from file where project_id = $1 for share) as locked',
  values: [projectId],
});

/** Old id → new id, per kind; dropped at commit (or rollback). */
export const createMaps = (): SqlQuery[] =>
  [
    'create temp table copy_table_map (old uuid primary key, new uuid not null) on commit drop',
    'create temp table copy_column_map (old uuid primary key, new uuid not null, table_new uuid not null, type text not null) on commit drop',
    'create temp table copy_row_map (old uuid primary key, new uuid not null) on commit drop',
    'create temp table copy_file_map (old uuid primary key, new uuid not null) on commit drop',
  ].map((text) => ({ text, values: [] }));

/**
 * New ids in the order of the old ones: a fresh UUIDv7 (`base`) whose last 32 bits count the
 * rows up. Ties of a sort broken by id (rows created in the same microsecond) then fall as they
 * do in the source. `base` is a parameter; the rest of the UUID is shared by one kind of one copy.
 */
const newId = (base: string, order: string) => `(left(${base}::text, 28) || lpad(to_hex(row_number() over (order by ${order})), 8, '0'))::uuid`;

export const insertProject = (p: { id: string; workspaceId: string; name: string; description: string; sourceId: string }): SqlQuery => ({
  text: `insert into project (id, workspace_id, name, description, locales, default_locale, created_at, updated_at)
         select $1, $2, $3, $4, locales, default_locale, now(), now() from project where id = $5`,
  values: [p.id, p.workspaceId, p.name, p.description, p.sourceId],
});

/** The source's live tables (deleted ones, still being purged, stay behind). */
export const mapTables = (sourceId: string, base: string): SqlQuery => ({
  text: `insert into copy_table_map (old, new) select id, ${newId('$2', 'id')} from content_table where project_id = $1 and deleted_at is null`,
  values: [sourceId, base],
});

export const copyTables = (projectId: string): SqlQuery => ({
  text: `insert into content_table (id, project_id, key, name, description, default_status, created_at, updated_at)
         select m.new, $1, t.key, t.name, t.description, t.default_status, t.created_at, t.updated_at
           from content_table t join copy_table_map m on m.old = t.id`,
  values: [projectId],
});

/** The live columns of the copied tables. */
export const mapColumns = (base: string): SqlQuery => ({
  text: `insert into copy_column_map (old, new, table_new, type)
         select c.id, ${newId('$1', 'c.id')}, m.new, c.type
           from content_column c join copy_table_map m on m.old = c.table_id where c.deleted_at is null`,
  values: [base],
});

/** A reference column's `settings.table` names the copy of its table. */
export const copyColumns = (): SqlQuery => ({
  text: `insert into content_column (id, table_id, name, label, type, settings, position, created_at, updated_at)
         select m.new, m.table_new, c.name, c.label, c.type,
                case when r.new is null then c.settings else jsonb_set(c.settings, '{table}', to_jsonb(r.new::text)) end,
                c.position, c.created_at, c.updated_at
           from content_column c join copy_column_map m on m.old = c.id
           left join copy_table_map r on c.type = 'reference' and r.old::text = c.settings->>'table'`,
  values: [],
});

/** Each copied table's id and its copy's. */
export const tableMap = (): SqlQuery => ({ text: 'select old, new from copy_table_map', values: [] });

/** The copied tables' columns (deleted ones flagged: their values are left behind), by old table id. */
export const sourceColumns = (): SqlQuery => ({
  text: `select c.table_id as old_table, c.name, c.type, c.deleted_at is not null as deleted
           from content_column c join copy_table_map m on m.old = c.table_id order by c.position, c.id`,
  values: [],
});

/** The copy's columns as the index statements need them, in position order. */
export const copiedColumns = (): SqlQuery => ({
  text: `select c.table_id, c.id, c.name, c.type, c.settings
           from content_column c join copy_table_map m on m.new = c.table_id order by c.position, c.id`,
  values: [],
});

/** A project's rows of `table`, with new ids in the old ones' order (`parent`: a column of the same table remapped too). */
function copyOwned(table: string, columns: string[], parent?: string): (sourceId: string, projectId: string, base: string) => SqlQuery {
  const list = columns.join(', ');
  const picked = columns.map((c) => (c === parent ? 'pm.new' : `s.${c}`)).join(', ');
  return (sourceId, projectId, base) => ({
    text: `with m as (select id as old, ${newId('$3', 'id')} as new from ${table} where project_id = $1)
           insert into ${table} (id, project_id, ${list})
           select m.new, $2, ${picked} from ${table} s join m on m.old = s.id
           ${parent ? `left join m pm on pm.old = s.${parent}` : ''}`,
    values: [sourceId, projectId, base],
  });
}

/** Roles name tables by key and columns by name (docs/roles.md): their rules copy as they are. */
export const copyRoles = copyOwned('role', ['name', 'description', 'rules', 'created_at', 'updated_at']);
export const copyCategories = copyOwned('category', ['name', 'slug', 'description', 'parent_id', 'created_at'], 'parent_id');
export const copyVariables = copyOwned('variable', ['key', 'value', 'description', 'created_at', 'updated_at']);
export const copyTranslations = copyOwned('translation', ['key', 'locale', 'value', 'created_at', 'updated_at']);

export const mapFiles = (sourceId: string, base: string): SqlQuery => ({
  text: `insert into copy_file_map (old, new) select id, ${newId('$2', 'id')} from file where project_id = $1`,
  values: [sourceId, base],
});

/** File rows of the copy share the stored bytes: same driver, key and the project they are stored under. */
export const copyFiles = (projectId: string): SqlQuery => ({
  text: `insert into file (id, project_id, name, mime_type, size, sha256, storage_driver, storage_key, storage_project_id, created_at, updated_at)
         select m.new, $1, f.name, f.mime_type, f.size, f.sha256, f.storage_driver, f.storage_key, f.storage_project_id, f.created_at, f.updated_at
           from file f join copy_file_map m on m.old = f.id`,
  values: [projectId],
});

/** Every row of the copied tables, whatever its status (revisions are not copied). */
export const mapRows = (base: string): SqlQuery => ({
  text: `insert into copy_row_map (old, new)
         select c.id, ${newId('$1', 'c.id')} from contents c join copy_table_map m on m.old = c.table_id`,
  values: [base],
});

/** The planner's row counts for the maps, filled after the transaction began. */
export const analyzeMaps = (): SqlQuery => ({ text: 'analyze copy_row_map, copy_file_map, copy_column_map', values: [] });

/** A text as a uuid, or null when it is none (a stored reference always is). */
const asUuid = (text: string) => `(case when (${text}) ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' then (${text})::uuid end)`;

/**
 * A reference or file value (`value`, jsonb: one id, or an array of them) through `map`: ids of
 * copied rows or files become the copy's; an id that names nothing copied drops out (null for
 * one id), so that no value of the copy names the source's rows.
 */
function remap(value: string, map: 'copy_row_map' | 'copy_file_map'): string {
  return `(case jsonb_typeof(${value})
             when 'string' then (select to_jsonb(x.new::text) from ${map} x where x.old = ${asUuid(`${value} #>> '{}'`)})
             when 'array' then coalesce((select jsonb_agg(to_jsonb(x.new::text) order by e.n)
                                           from jsonb_array_elements_text(${value}) with ordinality as e(v, n)
                                           join ${map} x on x.old = ${asUuid('e.v')}), '[]'::jsonb)
           end)`;
}

const MAP_OF = { reference: 'copy_row_map', file: 'copy_file_map' } as const;

/** A column of a source table, deleted or not, as copyRows reads it. */
export interface SourceColumn {
  name: string;
  type: string;
  deleted: boolean;
}

/** jsonb_build_object takes at most 100 arguments: pairs go in groups. */
const PAIRS_PER_OBJECT = 40;

/**
 * A row's `data` in the copy: values of deleted columns (not purged yet) left out, reference
 * and file values remapped. Column names match COLUMN_NAME; they are still written as literals.
 */
function copiedData(columns: SourceColumn[]): { sql: string; joins: string; drop: string[] | null } {
  const remapped = columns.filter((c) => !c.deleted && (c.type === 'reference' || c.type === 'file'));
  const live = new Set(columns.filter((c) => !c.deleted).map((c) => c.name));
  const drop = [...new Set([...columns.filter((c) => c.deleted && !live.has(c.name)).map((c) => c.name), ...remapped.map((c) => c.name)])];
  if (remapped.length === 0) return drop.length > 0 ? { sql: 'c.data - $4::text[]', joins: '', drop } : { sql: 'c.data', joins: '', drop: null };
  // A single id is found by a hash join (one per column; measured 2026-11-28 on 100,000 rows, a
  // look-up per row cost seconds); an array goes through the subquery of `remap`.
  const joins = remapped.map((c, i) => `left join ${MAP_OF[c.type as 'reference' | 'file']} j${i} on j${i}.old = ${asUuid(`c.data->>${literal(c.name)}`)}`);
  const objects: string[] = [];
  for (let i = 0; i < remapped.length; i += PAIRS_PER_OBJECT) {
    const pairs = remapped.slice(i, i + PAIRS_PER_OBJECT).map((c, k) => {
      const value = `c.data->${literal(c.name)}`;
      const one = `to_jsonb(j${i + k}.new::text)`;
      const many = remap(value, MAP_OF[c.type as 'reference' | 'file']);
      return `${literal(c.name)}::text, case jsonb_typeof(${value}) when 'string' then ${one} when 'array' then ${many} end`;
    });
    objects.push(`jsonb_build_object(${pairs.join(', ')})`);
  }
  // Absent and null mean the same (docs/contents.md#contents): a remapped null is left out.
  return { sql: `(c.data - $4::text[]) || jsonb_strip_nulls(${objects.join(' || ')})`, joins: joins.join('\n'), drop };
}

/**
 * A row's draft in the copy: keyed by column id (contents/drafts/draft-data.ts), so keys become
 * the copy's column ids (those of deleted columns drop out) and reference and file values are
 * remapped; a value that names nothing copied becomes null.
 */
const COPIED_DRAFT = `case when c.draft is not null then coalesce(
    (select jsonb_object_agg(dm.new::text, case dm.type
                                             when 'reference' then coalesce(${remap('d.v', 'copy_row_map')}, 'null'::jsonb)
                                             when 'file' then coalesce(${remap('d.v', 'copy_file_map')}, 'null'::jsonb)
                                             else d.v end)
       from jsonb_each(c.draft) as d(k, v) join copy_column_map dm on dm.old = ${asUuid('d.k')}),
    '{}'::jsonb) end`;

/**
 * The rows of one source table into its copy, versions and timestamps as they are. The insert
 * fires the change log's statement trigger as any insert does (a large one records "recompute
 * this table"), so caches of the new table start right.
 */
export function copyRows(projectId: string, oldTable: string, newTable: string, columns: SourceColumn[]): SqlQuery {
  const data = copiedData(columns);
  return {
    text: `insert into contents (id, project_id, table_id, status, slug, data, draft, publish_at, published_at, created_at, updated_at, version)
           select m.new, $1, $2, c.status, c.slug, ${data.sql}, ${COPIED_DRAFT}, c.publish_at, c.published_at, c.created_at, c.updated_at, c.version
             from contents c join copy_row_map m on m.old = c.id
             ${data.joins}
            where c.table_id = $3`,
    values: [projectId, newTable, oldTable, ...(data.drop ? [data.drop] : [])],
  };
}

/** The exact totals of the copied tables (docs/contents.md: counters per table and status), on shard 0. */
export const countRows = (): SqlQuery => ({
  text: `insert into contents_count (table_id, status, shard, count, version)
         select c.table_id, c.status, 0, count(*), 1 from contents c join copy_table_map m on m.new = c.table_id group by c.table_id, c.status`,
  values: [],
});

/**
 * A reference or file column's `defaultValue` names a row or a file: the copy's when it was
 * copied, else the default is dropped (a copy without contents has none of them).
 */
export const remapColumnDefaults = (): SqlQuery => ({
  text: `update content_column c
            set settings = case when v.value is null then c.settings - 'defaultValue' else jsonb_set(c.settings, '{defaultValue}', v.value) end
           from (select m.new as id,
                        case m.type when 'reference' then ${remap(`o.settings->'defaultValue'`, 'copy_row_map')}
                                    else ${remap(`o.settings->'defaultValue'`, 'copy_file_map')} end as value
                   from copy_column_map m join content_column o on o.id = m.old
                  where m.type in ('reference', 'file') and jsonb_exists(o.settings, 'defaultValue')) as v
          where c.id = v.id`,
  values: [],
});
