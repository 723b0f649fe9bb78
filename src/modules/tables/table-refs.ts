import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../../shared/ids.js';
import { TableSchema } from './table.entity.js';
import { TABLE_KEY } from './table.schema.js';

/**
 * A table named in a body or a query (a reference column's `settings.table`, a webhook's
 * `tableIds`, …): its id or its key, as in every path (docs/contents.md#tables-and-columns). What is stored and returned is
 * always the id, so renaming a table's key changes nothing that points to it.
 */
export const isTableRef = (value: string): boolean => isUuid(value) || TABLE_KEY.test(value);

/**
 * The id of each of `refs` (ids or keys) that names a live table of the project; names of no
 * such table are absent from the answer. One query for all of them.
 */
export async function resolveTableRefs(em: EntityManager, projectId: string, refs: readonly string[]): Promise<Map<string, string>> {
  const ids = [...new Set(refs.filter(isUuid).map((id) => id.toLowerCase()))];
  const keys = [...new Set(refs.filter((ref) => !isUuid(ref)))];
  if (ids.length === 0 && keys.length === 0) return new Map();
  const found = await em.find(
    TableSchema,
    { project: projectId, deletedAt: null, $or: [...(ids.length ? [{ id: { $in: ids } }] : []), ...(keys.length ? [{ key: { $in: keys } }] : [])] },
    { fields: ['id', 'key'] },
  );
  const byId = new Set(found.map((t) => t.id));
  const byKey = new Map(found.map((t) => [t.key, t.id]));
  const resolved = new Map<string, string>();
  for (const ref of refs) {
    const id = isUuid(ref) ? (byId.has(ref.toLowerCase()) ? ref.toLowerCase() : undefined) : byKey.get(ref);
    if (id) resolved.set(ref, id);
  }
  return resolved;
}
