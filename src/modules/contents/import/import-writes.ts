import { savepoint, type Sql } from '../../../db/sql.js';
import { jsonbArray } from '../../../db/jsonb-param.js';
import type { ErrorDetail } from '../../../errors/app-error.js';
import type { ContentStatus } from '../../tables/table.entity.js';
import { randomShard, recordChange } from '../rows/counts.js';
import { insertContentsJson, updateRows } from '../rows/rows.sql.js';
import { storageLimitField, uniqueViolationField } from '../rows/uniqueness.js';
import type { WriteScope } from '../rows/write.js';
import type { BatchContext, PlannedInserts, PlannedUpdate } from './import-batch.js';

/**
 * Inserts the batch's new rows in one statement; a row whose unique value (id, slug, unique
 * column) is taken, by a stored row or an earlier line, is left out by it and then tried alone
 * under a savepoint, so that the line's error names the field.
 */
export async function insertPlanned(scope: WriteScope, sql: Sql, inserts: PlannedInserts, ctx: BatchContext): Promise<number> {
  if (inserts.ids.length === 0) return 0;
  const all = insertContentsJson(ctx.param.write(inserts.jsons), true, randomShard(), true);
  const inserted = new Set((await sql<{ id: string }>(all)).map((r) => r.id));
  for (const [i, id] of inserts.ids.entries()) {
    if (inserted.has(id)) continue;
    await sql(savepoint('savepoint', 'import_row'));
    try {
      await sql(insertContentsJson(jsonbArray([inserts.jsons[i]]), false, randomShard(), true));
      await sql(savepoint('release savepoint', 'import_row'));
      inserted.add(id);
    } catch (error) {
      await sql(savepoint('rollback to savepoint', 'import_row'));
      ctx.report(inserts.lines[i], [conflictDetail(scope, inserts.lines[i], error)]);
    }
  }
  return inserted.size;
}

function conflictDetail(scope: WriteScope, line: number, error: unknown): ErrorDetail {
  const { code, constraint } = ((error as { cause?: unknown }).cause ?? error) as { code?: string; constraint?: string };
  if (code === '23505' && constraint === 'contents_pkey') return { field: `line ${line}: id`, message: 'a row with this id already exists' };
  const field = uniqueViolationField(scope.table, error);
  if (field) return { field: `line ${line}: ${field}`, message: 'this value already exists in another row or an earlier line' };
  const tooLarge = storageLimitField(scope.table, error);
  if (tooLarge) return { field: `line ${line}: ${tooLarge}`, message: 'is too large to store' };
  throw error;
}

/** Updates the batch's matched rows (upsert) in one statement; on a taken unique value, row by row to name the line. */
export async function updatePlanned(scope: WriteScope, sql: Sql, updates: PlannedUpdate[], ctx: BatchContext): Promise<number> {
  if (updates.length === 0) return 0;
  const run = async (batch: PlannedUpdate[]) => {
    await sql(updateRows(batch.map((p) => ({ ...p.update, clearsDraft: false, actor: scope.actor })), null, true));
    for (const [key, group] of Map.groupBy(batch, (p) => `${p.from} ${p.update.status}`)) {
      const [from, to] = key.split(' ') as [ContentStatus, ContentStatus];
      if (from !== to) await recordChange(sql, scope.table.id, from, to, group.length);
    }
  };
  await sql(savepoint('savepoint', 'import_updates'));
  try {
    await run(updates);
    await sql(savepoint('release savepoint', 'import_updates'));
    return updates.length;
  } catch {
    await sql(savepoint('rollback to savepoint', 'import_updates'));
  }
  let written = 0;
  for (const p of updates) {
    await sql(savepoint('savepoint', 'import_row'));
    try {
      await run([p]);
      await sql(savepoint('release savepoint', 'import_row'));
      written++;
    } catch (error) {
      await sql(savepoint('rollback to savepoint', 'import_row'));
      ctx.report(p.line, [conflictDetail(scope, p.line, error)]);
    }
  }
  return written;
}
