import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, serviceUnavailable } from '../../errors/app-error.js';
import { runSql, type SqlQuery } from '../../db/sql.js';
import { uuidv7 } from '../../shared/ids.js';
import { createIndexStatements, searchIndexStatements } from '../columns/column.ddl.js';
import { ddl } from '../columns/column.sql.js';
import type { ColumnDef } from '../tables/table-def.js';
import * as q from './project-copy.sql.js';

/** The project a copy is made from, and whether its rows and files come too. */
export interface CopySource {
  projectId: string;
  contents: boolean;
}

/** The new project's own fields; the rest (locales, schema, …) is the source's. */
export interface CopyTarget {
  workspaceId: string;
  name: string;
  description: string;
}

/**
 * Serialization failures (a source row changed after the copy's snapshot, under a lock it asks
 * for) and deadlocks are retried this many times in all, each time from a fresh snapshot.
 */
const ATTEMPTS = 4;
const RETRIED = new Set(['40001', '40P01']);

function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Creates a project from another one (docs/concepts.md#copying-a-project): its tables, columns,
 * roles, categories, variables and translations, and with `contents` its rows (drafts included,
 * revisions not) and file records sharing the stored bytes. One transaction, one snapshot of the
 * source, whatever is written to it meanwhile. The caller has checked who may read the source.
 * Answers the new project's id.
 */
export async function copyProject(em: EntityManager, target: CopyTarget, source: CopySource): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional((tx) => copyOnce(tx, target, source));
    } catch (error) {
      const state = sqlState(error);
      if (state === undefined || !RETRIED.has(state)) throw error;
      if (attempt < ATTEMPTS) continue;
      // The source kept changing under the copy's locks: a retry later will find it calmer.
      throw serviceUnavailable('the source project changed during every attempt to copy it; retry');
    }
  }
}

async function copyOnce(tx: EntityManager, target: CopyTarget, source: CopySource): Promise<string> {
  const run = <T extends object>(query: SqlQuery) => runSql<T>(tx, query);
  await run(q.repeatableRead());
  const [found] = await run<{ locales: string[] }>(q.lockSourceProject(source.projectId));
  if (!found) throw notFound('Project');
  if (source.contents) await run(q.lockSourceFiles(source.projectId));
  for (const statement of q.createMaps()) await run(statement);

  const projectId = uuidv7();
  await run(q.insertProject({ id: projectId, sourceId: source.projectId, ...target }));
  await run(q.mapTables(source.projectId, uuidv7()));
  await run(q.copyTables(projectId));
  await run(q.mapColumns(uuidv7()));
  await run(q.copyColumns());
  await run(q.copyRoles(source.projectId, projectId, uuidv7()));
  await run(q.copyCategories(source.projectId, projectId, uuidv7()));
  await run(q.copyVariables(source.projectId, projectId, uuidv7()));
  await run(q.copyTranslations(source.projectId, projectId, uuidv7()));

  if (source.contents) {
    await run(q.mapFiles(source.projectId, uuidv7()));
    await run(q.copyFiles(projectId));
    await run(q.mapRows(uuidv7()));
    await run(q.analyzeMaps());
    const tables = await run<{ old: string; new: string }>(q.tableMap());
    const columns = await run<q.SourceColumn & { old_table: string }>(q.sourceColumns());
    for (const table of tables) {
      const list = columns.filter((c) => c.old_table === table.old).map(({ old_table: _t, ...column }) => column);
      await run(q.copyRows(projectId, table.old, table.new, list));
    }
    await run(q.countRows());
  }
  await run(q.remapColumnDefaults());
  await buildIndexes(tx, found.locales);
  return projectId;
}

/**
 * The copy's per-column and search indexes, as creating its columns one by one would have made
 * them (columns/column.ddl.ts), built once its rows are in: one pass over them per index.
 */
async function buildIndexes(tx: EntityManager, locales: string[]): Promise<void> {
  const rows = await runSql<ColumnDef & { table_id: string }>(tx, q.copiedColumns());
  const tables = new Map<string, ColumnDef[]>();
  for (const { table_id, ...column } of rows) tables.set(table_id, [...(tables.get(table_id) ?? []), column]);
  for (const [tableId, columns] of tables) {
    for (const column of columns) {
      for (const statement of createIndexStatements(tableId, column, locales)) await runSql(tx, ddl(statement));
    }
    for (const statement of searchIndexStatements({ id: tableId, columns }, locales)) await runSql(tx, ddl(statement));
  }
}
