import { createHash } from 'node:crypto';
import type { Orm } from '../../db/orm.js';
import { runSqlOnPool } from '../../db/sql.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import type { ColumnDef, TableDef } from './table-def.js';
import { columnsOfTable, liveTable } from './table.sql.js';

/** Same window as credentials and projects: other processes see schema changes within it. */
const TABLE_CACHE_MS = 500;
const TABLE_CACHE_MAX_ENTRIES = 10_000;

/**
 * Live tables with their columns, by project and id or key, cached briefly: every contents
 * request needs the schema, which changes rarely. The process that changes a schema forgets
 * that project's entries at once.
 */
export class TableDefinitions {
  /** By `projectId:tableIdOrKey`; `null`: no live table by that id or key, remembered as well. */
  private readonly cache = new TtlCache<string, TableDef | null>({ ttlMs: TABLE_CACHE_MS, maxEntries: TABLE_CACHE_MAX_ENTRIES });
  /**
   * Loads under way: callers that miss together share one (every open realtime stream asks for
   * the table of each event it receives, all at once when the entry expires).
   */
  private readonly loading = new Map<string, Promise<TableDef | null>>();

  constructor(private readonly orm: Orm) {}

  async get(projectId: string, tableIdOrKey: string): Promise<TableDef | null> {
    const cacheKey = `${projectId}:${tableIdOrKey}`;
    const hit = this.cache.get(cacheKey);
    if (hit !== undefined) return hit;
    const pending = this.loading.get(cacheKey);
    if (pending) return pending;
    // A load that `forget` dropped meanwhile neither fills the cache nor ends a later load.
    const current = () => this.loading.get(cacheKey) === loading;
    const loading: Promise<TableDef | null> = this.load(projectId, tableIdOrKey)
      .then((def) => {
        if (current()) this.cache.set(cacheKey, def);
        return def;
      })
      .finally(() => {
        if (current()) this.loading.delete(cacheKey);
      });
    this.loading.set(cacheKey, loading);
    return loading;
  }

  forget(projectId: string): void {
    this.cache.deleteWhere((key) => key.startsWith(`${projectId}:`));
    for (const key of [...this.loading.keys()]) if (key.startsWith(`${projectId}:`)) this.loading.delete(key);
  }

  private async load(projectId: string, tableIdOrKey: string): Promise<TableDef | null> {
    // PostgreSQL text cannot hold NUL: no table has such an id or key (and asking would be a 500).
    if (tableIdOrKey.includes('\u0000')) return null;
    const [table] = await runSqlOnPool<{ id: string; key: string; default_status: TableDef['defaultStatus'] }>(this.orm.em, liveTable(projectId, tableIdOrKey));
    if (!table) return null;
    const columns = await runSqlOnPool<ColumnDef & { deleted: boolean }>(this.orm.em, columnsOfTable(table.id));
    const live = columns.filter((c) => !c.deleted).map(({ deleted: _d, ...c }) => c);
    const hiddenKeys = columns.filter((c) => c.deleted).map((c) => c.name);
    return {
      id: table.id,
      projectId,
      key: table.key,
      defaultStatus: table.default_status,
      columns: live,
      hiddenKeys,
      schemaKey: createHash('sha1').update(JSON.stringify([live, hiddenKeys])).digest('base64url'),
    };
  }
}
