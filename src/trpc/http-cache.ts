import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { ProjectAccess } from '../auth/project-access.js';
import { nodeName, readCounters } from '../modules/delivery/counter-reads.js';
import { dependenciesOf, referencedTables, type CacheKind } from '../modules/delivery/surrogate-keys.js';
import type { TableDef } from '../modules/tables/table-def.js';
import type { AppDeps } from '../app-deps.js';
import type { Context } from './context.js';

/*
 * Conditional reads and cache headers of the `/v1` GETs (docs/scaling-out.md#http-caches-and-purging).
 * Before the procedure reads anything, the change counters of what the answer depends on are
 * read (one indexed statement, shared by the requests that ask meanwhile; no row of the answer
 * is read) and made into a strong ETag with
 * the caller's view and the request's URL (path and query: locale, fields, expand, filters...).
 * `If-None-Match` naming it is answered 304 without running the procedure.
 *
 * A read of one row keeps its `ETag: "<id>:<version>"` (the If-Match contract of
 * docs/contents.md#concurrent-edits, the same whatever `fields` leaves out). Its 304 is decided
 * from the counters too: the process remembers, per view, URL and tag, the counters it answered
 * at; a request naming that tag while the counters are still there is 304. A process that did
 * not answer it (or forgot) answers 200 with the same tag: never a wrong 304.
 */

/** Answered as 304 by the `/v1` layer, with the headers on the context. */
export class NotModified extends Error {
  constructor() {
    super('Not Modified');
  }
}

/**
 * Read-one answers remembered per process (node, view, URL, tag → counters), in two generations:
 * a stamp is written only when it is new or changed (reading the same rows again at the same
 * counters allocates and rewrites nothing, which kept the garbage collector busy with entries
 * that lived long enough to be promoted), and when the newer generation is full the older one
 * is dropped whole. A stamp found only in the older generation moves to the newer one.
 */
const GENERATION_MAX = 25_000;
let issued = new Map<string, string>();
let issuedBefore = new Map<string, string>();

function issuedStamp(key: string): string | undefined {
  const stamp = issued.get(key);
  if (stamp !== undefined) return stamp;
  const older = issuedBefore.get(key);
  if (older !== undefined) remember(key, older);
  return older;
}

function remember(key: string, stamp: string): void {
  if (issued.get(key) === stamp) return;
  if (issued.size >= GENERATION_MAX) {
    issuedBefore = issued;
    issued = new Map();
  }
  issued.set(key, stamp);
}

/** The view keys of API keys without a role, built once (the request names one per call). */
const KEY_VIEWS: Record<string, string> = { read: 'key:read', read_write: 'key:read_write', admin: 'key:admin' };

/** What the caller sees of the project, as far as answers differ by it. */
function viewKey(principal: Principal, access: ProjectAccess): string {
  if (access.role) return `role:${access.role.id}:${access.role.version}`;
  return principal.kind === 'apiKey' ? ((principal.permission && KEY_VIEWS[principal.permission]) ?? `key:${principal.permission}`) : 'account';
}

/** `Cache-Control` of shared-cacheable answers, per CDN_MAX_AGE (one value per process). */
let publicControl = { maxAge: -1, value: '' };
function publicCacheControl(maxAge: number): string {
  if (publicControl.maxAge !== maxAge) publicControl = { maxAge, value: `public, max-age=0, s-maxage=${maxAge}` };
  return publicControl.value;
}

/**
 * Built-in read keys: the only callers whose answers a shared cache may keep (keyed by
 * Authorization and Origin). A key restricted to `allowedHosts` that was let in by its Referer
 * (no Origin) is answered privately: a cache keyed by Origin cannot tell such requests apart.
 */
export const sharedCacheable = (principal: Principal, origin: string | undefined): boolean =>
  principal.kind === 'apiKey' && principal.permission === 'read' && !principal.role && (principal.allowedHosts.length === 0 || Boolean(origin));

/** The entity tags of `If-None-Match` (`*`: any), weak ones compared weakly as RFC 9110 says. */
export function parseIfNoneMatch(header: string | undefined): string[] | null {
  if (!header) return null;
  return header.split(',').map((tag) => tag.trim().replace(/^W\//, '')).filter(Boolean);
}

/** Whether the answer reads other tables' rows: expansions, dotted filters or sorts, a role's dotted rules. */
function readsRelated(input: unknown, access: ProjectAccess): boolean {
  if (access.role) return true;
  const given = (input ?? {}) as Record<string, unknown>;
  if (given.expand !== undefined) return true;
  return [given.filter, given.sort].some((value) => typeof value === 'string' && value.includes('.'));
}

async function relatedTables(access: ProjectAccess, table: TableDef): Promise<string[]> {
  const defs = new Map<string, TableDef | null>([[table.id, table]]);
  const referencesOf = (def: TableDef | null | undefined) =>
    (def?.columns ?? []).flatMap((column) => (column.type === 'reference' && column.settings.table ? [column.settings.table] : []));
  // Loads the definitions level by level (cached per process), then walks them.
  let frontier = [table.id];
  while (frontier.length > 0) {
    const next = [...new Set(frontier.flatMap((id) => referencesOf(defs.get(id))))].filter((id) => !defs.has(id));
    for (const id of next) defs.set(id, await access.deps.tables.get(access.project.id, id));
    frontier = next;
  }
  return referencedTables(table.id, (id) => referencesOf(defs.get(id)));
}

/**
 * The counters of `scopes`, read on the request's node after it arrived. Contents reads take
 * them from the change-log reads of their tables (the same statement, which the procedure then
 * uses too, and which concurrent requests share): no statement of their own. Other reads share
 * a counters read with the requests of the node that ask meanwhile (counter-reads.ts).
 */
async function countersOf(deps: AppDeps, kind: CacheKind, table: TableDef | undefined, related: string[], scopes: string[]): Promise<CounterLookup> {
  if (!table || !deps.results || (kind !== 'contents' && kind !== 'contentsItem')) {
    const versions = await readCounters(deps.pool, scopes);
    return (scope) => versions.get(scope);
  }
  const results = deps.results;
  // One table (reads by id, plain lists): its change-log read's counters as they are.
  if (related.length === 0) {
    const { counters } = await results.syncTable(deps.pool, table.id);
    return (scope) => counters[scope];
  }
  const synced = await Promise.all([table.id, ...related.filter((id) => id !== table.id)].map((id) => results.syncTable(deps.pool, id)));
  const versions = new Map<string, string>();
  for (const state of synced) for (const [scope, version] of Object.entries(state.counters)) versions.set(scope, version);
  return (scope) => versions.get(scope);
}

/** A scope's counter (undefined: never changed). */
type CounterLookup = (scope: string) => string | undefined;

export interface ConditionalRead {
  ctx: Context;
  kind: CacheKind;
  principal: Principal;
  access: ProjectAccess;
  input: unknown;
  table?: TableDef;
  /**
   * The request's collaborators, routed: the counters are read on the node the answer is read
   * from, and before it, so a tag never names newer counters than its answer holds.
   */
  deps: AppDeps;
}

/**
 * Sets the cache headers of a GET and answers it 304 (throws NotModified) when `If-None-Match`
 * names its current tag. Only on the `/v1` face, for input that could be read.
 */
export async function conditionalRead({ ctx, kind, principal, access, input, table, deps }: ConditionalRead): Promise<void> {
  if (!ctx.conditional || ctx.inputError) return;
  const projectId = access.project.id;
  const related = table && (kind === 'contents' || kind === 'contentsItem') && readsRelated(input, access) ? await relatedTables(access, table) : [];
  const { scopes, keys } = dependenciesOf({ kind, projectId, tableId: table?.id, related });
  const counterOf = await countersOf(deps, kind, table, related, scopes);
  let stamp = '';
  for (const scope of scopes) stamp += `${stamp ? ' ' : ''}${scope}=${counterOf(scope) ?? 0}`;
  const identity = `${viewKey(principal, access)}\u0000${ctx.req.url ?? ''}`;

  const headers = ctx.response.headers;
  const shared = sharedCacheable(principal, ctx.req.headers.origin);
  if (shared) {
    headers['cache-control'] = publicCacheControl(ctx.deps.config.CDN_MAX_AGE);
    headers.vary = 'Authorization, Origin';
  } else {
    headers['cache-control'] = 'private, no-cache';
  }
  // Surrogate keys only on what a shared cache may keep: nothing purges a private answer.
  const surrogate = (rowId?: string) => {
    if (!shared) return;
    const value = rowId ? `${keys.join(' ')} r:${rowId}` : keys.join(' ');
    headers['surrogate-key'] = headers['cache-tag'] = value;
  };
  const asked = parseIfNoneMatch(ctx.req.headers['if-none-match']);

  if (kind === 'contentsItem') {
    const draft = (input as { version?: string } | undefined)?.version === 'draft';
    // Read-one stamps are kept per node: a lagging replica's counters may equal an older state's.
    const remembered = `${nodeName(deps.pool)}\u0000${identity}\u0000`;
    const current = asked && !draft ? asked.find((tag) => issuedStamp(remembered + tag) === stamp) : undefined;
    if (current) {
      headers.etag = current;
      surrogate(rowIdOf(current));
      throw new NotModified();
    }
    // The tag is the procedure's (the row's id and version): remembered once it is known.
    ctx.beforeSend = () => {
      const etag = headers.etag;
      const id = etag ? rowIdOf(etag) : undefined;
      if (!id) return surrogate();
      surrogate(id);
      if (!draft) remember(remembered + etag, stamp);
    };
    return;
  }
  surrogate();
  const tag = `"${createHash('sha256').update(`${identity}\u0000${stamp}`).digest('base64url').slice(0, 32)}"`;
  headers.etag = tag;
  if (asked && (asked.includes(tag) || asked.includes('*'))) throw new NotModified();
}

/** The row id of a read-one tag (`"<id>:<version>"`). */
function rowIdOf(etag: string): string | undefined {
  return /^"([0-9a-f-]{36}):/.exec(etag)?.[1];
}
