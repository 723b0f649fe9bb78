import type { SqlQuery } from '../../db/sql.js';

/*
 * The statements of HTTP caching (docs/scaling-out.md#http-caches-and-purging): the change
 * counters an ETag is made of, and the queue of surrogate keys to purge (both written by the
 * triggers of migration Migration20261202040000_http_cache).
 */

/** The change counter of each scope: the sum over its shards (absent: never changed). */
export const scopeVersions = (scopes: string[]): SqlQuery => ({
  name: 'cache.versions',
  text: `select scope, sum(version)::text as version from cache_version where scope = any($1::text[]) group by scope`,
  values: [scopes],
});

/**
 * Takes up to `limit` queued purges, oldest first, locking them (others skip them): deleted
 * when the caller's transaction commits, back in the queue when it rolls back.
 */
export const takePurges = (limit: number): SqlQuery => ({
  text: `delete from cache_purge where id in (select id from cache_purge order by id limit $1 for update skip locked) returning keys`,
  values: [limit],
});

/** The channel the triggers notify when they queue a purge (at commit). */
export const PURGE_CHANNEL = 'tabula_cache_purge';
export const listenForPurges = (): SqlQuery => ({ text: `listen ${PURGE_CHANNEL}`, values: [] });
