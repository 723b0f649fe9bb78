/*
 * What an answer depends on, in two vocabularies (docs/scaling-out.md#http-caches-and-purging):
 * the change counters its ETag is made of (`scopes`, table cache_version) and the surrogate keys
 * a CDN purges it by (`keys`). Pure: the HTTP layer turns them into headers.
 *
 * Scopes: `t:<tableId>` (rows of a table), `m:<projectId>` (schema, roles, keys, members,
 * locales: every answer of the project depends on it), `c:`/`v:`/`i:`/`f:<projectId>`
 * (categories, variables, translations, files).
 * Keys: `p:<projectId>` on every answer; `t:<tableId>` on the table's answers, `l:<tableId>` on
 * its lists (and on answers that expand into it), `r:<rowId>` on a read of one row; `c:`,
 * `v:`, `i:`, `f:<projectId>` on the other resources. The database queues for purging `r:` and
 * `l:` on row changes (`t:` for large ones), the resource's key on resource changes, and `p:`
 * on schema, API key and project changes.
 */

/** The kinds of cacheable reads (procedure meta `httpCache`). */
export type CacheKind = 'contents' | 'contentsItem' | 'tables' | 'columns' | 'categories' | 'variables' | 'translations' | 'files';

export interface Dependencies {
  scopes: string[];
  keys: string[];
}

export interface DependencyInput {
  kind: CacheKind;
  projectId: string;
  /** The table addressed, if any. */
  tableId?: string;
  /** Tables whose rows the answer may read (references: expand, dotted filters and sorts). */
  related?: readonly string[];
}

const RESOURCE_PREFIX = { categories: 'c:', variables: 'v:', translations: 'i:', files: 'f:' } as const;

export function dependenciesOf({ kind, projectId, tableId, related = [] }: DependencyInput): Dependencies {
  const scopes = [`m:${projectId}`];
  const keys = [`p:${projectId}`];
  if (kind === 'contents' || kind === 'contentsItem') {
    const tables = [tableId!, ...related.filter((id) => id !== tableId)];
    scopes.push(...tables.map((id) => `t:${id}`));
    keys.push(`t:${tableId}`);
    // A list is purged by `l:` of its own table; any answer reading others' rows by theirs.
    if (kind === 'contents') keys.push(`l:${tableId}`);
    keys.push(...related.filter((id) => id !== tableId).map((id) => `l:${id}`));
  } else if (kind === 'tables' || kind === 'columns') {
    if (tableId) keys.push(`t:${tableId}`);
  } else {
    const prefix = RESOURCE_PREFIX[kind];
    scopes.push(`${prefix}${projectId}`);
    keys.push(`${prefix}${projectId}`);
  }
  return { scopes, keys };
}

/**
 * The tables a table's rows reach through reference columns, transitively (expand goes several
 * levels deep, dotted filters through references): what its answers may read.
 */
export function referencedTables(start: string, referencesOf: (tableId: string) => readonly string[]): string[] {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const next of referencesOf(queue.shift()!)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  seen.delete(start);
  return [...seen].sort();
}
