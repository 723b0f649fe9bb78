import type { Sql } from '../../../db/sql.js';
import type { ErrorDetail } from '../../../errors/app-error.js';
import { existingContents } from '../rows/rows.sql.js';
import type { ValidatedData } from '../rows/validate.js';
import { checkLookups } from '../rows/write.js';
import { prefixed, type BatchContext, type LineLookups, type PendingReference } from './import-batch.js';

/** The line's references to rows not found yet, and its files: what is left to look up. */
export function lookupsOf(line: number, { references, files }: ValidatedData, found: Map<string, Set<string>>): LineLookups | null {
  const unknown = references.filter((ref) => ref.ids.some((id) => !found.get(ref.tableId)?.has(id)));
  return unknown.length > 0 || files.length > 0 ? { line, references: unknown, files } : null;
}

/**
 * References and files of the batch's good lines: files must exist now (the lines refused for a
 * missing file are answered); references may come later in the file (kept pending).
 */
export async function checkBatchLookups(sql: Sql, lookups: LineLookups[], ctx: BatchContext): Promise<Set<number>> {
  const refused = new Set<number>();
  const unknown = new Map<string, Set<string>>();
  for (const { references } of lookups) {
    for (const ref of references) {
      const found = ctx.found.get(ref.tableId);
      for (const id of ref.ids) if (!found?.has(id)) unknown.set(ref.tableId, (unknown.get(ref.tableId) ?? new Set()).add(id));
    }
  }
  for (const [tableId, ids] of unknown) {
    const found = ctx.found.get(tableId) ?? new Set<string>();
    for (const { id } of await sql<{ id: string }>(existingContents(tableId, [...ids], true))) found.add(id);
    ctx.found.set(tableId, found);
  }
  for (const { line, references, files } of lookups) {
    for (const ref of references) {
      const missing = ref.ids.filter((id) => !ctx.found.get(ref.tableId)?.has(id));
      if (missing.length > 0) ctx.pending.push({ line, column: ref.column.name, tableId: ref.tableId, ids: missing });
    }
    if (files.length > 0) {
      const details: ErrorDetail[] = [];
      await checkLookups(sql, { references: [], files }, details);
      if (details.length > 0) {
        ctx.report(line, prefixed(line, details));
        refused.add(line);
      }
    }
  }
  return refused;
}

/** The pending references still missing once every line is written (lines of the file included). */
export async function stillMissing(sql: Sql, pending: PendingReference[]): Promise<PendingReference[]> {
  const missing: PendingReference[] = [];
  for (const [tableId, refs] of Map.groupBy(pending, (p) => p.tableId)) {
    const ids = [...new Set(refs.flatMap((r) => r.ids))];
    const found = new Set((await sql<{ id: string }>(existingContents(tableId, ids, true))).map((r) => r.id));
    for (const ref of refs) {
      const still = ref.ids.filter((id) => !found.has(id));
      if (still.length > 0) missing.push({ ...ref, ids: still });
    }
  }
  return missing;
}
