/*
 * The purge requests of each CDN kind (docs/scaling-out.md#http-caches-and-purging), built from
 * a batch of surrogate keys. Pure: purge-sender.ts sends them.
 */

export type PurgeKind = 'varnish' | 'fastly' | 'cloudflare';

export interface PurgeRequest {
  method: 'PURGE' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Keys per request. Varnish: the request header stays well under its default 8 KB limit
 * (`http_req_hdr_len`; a row key is 38 characters). Fastly takes up to 256 keys per request;
 * Cloudflare up to 30 tags per call on most plans.
 */
export const KEYS_PER_REQUEST: Record<PurgeKind, number> = { varnish: 150, fastly: 256, cloudflare: 30 };

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The requests that purge `keys` (deduplicated): Varnish xkey (`PURGE` with `xkey-purge`),
 * Fastly (`POST /service/{id}/purge` with `Surrogate-Key`; `url` is that endpoint) or
 * Cloudflare (`POST /zones/{id}/purge_cache` with `{ "tags": [...] }`; `url` is that endpoint).
 */
export function purgeRequests(kind: PurgeKind, url: string, keys: Iterable<string>, token?: string): PurgeRequest[] {
  const unique = [...new Set(keys)].sort();
  return chunks(unique, KEYS_PER_REQUEST[kind]).map((batch): PurgeRequest => {
    if (kind === 'varnish') return { method: 'PURGE', url, headers: { 'xkey-purge': batch.join(' ') } };
    if (kind === 'fastly') return { method: 'POST', url, headers: { 'surrogate-key': batch.join(' '), 'fastly-key': token ?? '', accept: 'application/json' } };
    return {
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tags: batch }),
    };
  });
}
