import type { Orm } from '../db/orm.js';
import { unauthorized } from '../errors/app-error.js';
import type { Principal } from './principal.js';
import { ACCOUNT_TOKEN_PREFIX, SECRET_SHAPE, sameDigest, sha256 } from './secrets.js';

interface CacheEntry {
  principal: Principal;
  digest: Buffer;
  expiresAt: number;
}

/**
 * How long a resolved credential is trusted without asking the database again. Short enough
 * that a deleted or deactivated credential is refused within this window on every API
 * process; this process also forgets an entry the moment it changes it.
 */
const CACHE_TTL_MS = 500;
/** `lastUsedAt` is written at most this often per credential: no write per request. */
const LAST_USED_INTERVAL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

/** Parses `Authorization: Bearer <secret>`; anything else is 401 (seed: Authentication). */
export function bearerSecret(header: string | undefined): string {
  if (!header) throw unauthorized('Missing Authorization header');
  const match = /^Bearer +(\S+)\s*$/.exec(header);
  if (!match) throw unauthorized('Authorization header must be "Bearer <token>"');
  return match[1];
}

export class CredentialResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(private readonly orm: Orm) {}

  /** Resolves the Authorization header into a principal, or throws 401. */
  async resolve(header: string | undefined): Promise<Principal> {
    const secret = bearerSecret(header);
    if (!SECRET_SHAPE.test(secret)) throw unauthorized('Unknown token or key');
    const digest = sha256(secret);
    const cacheKey = digest.toString('hex');
    const cached = this.cache.get(cacheKey);
    const now = Date.now();
    if (cached && cached.expiresAt > now && sameDigest(cached.digest, digest)) return cached.principal;

    const principal = secret.startsWith(ACCOUNT_TOKEN_PREFIX)
      ? await this.findAccountToken(digest)
      : null;
    if (!principal) {
      this.cache.delete(cacheKey);
      throw unauthorized('Unknown, deleted or deactivated token or key');
    }
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(cacheKey, { principal, digest, expiresAt: now + CACHE_TTL_MS });
    this.touch(principal, now);
    return principal;
  }

  /** Drops every cached entry (after a change to credentials made by this process). */
  invalidate(): void {
    this.cache.clear();
  }

  private async findAccountToken(digest: Buffer): Promise<Principal | null> {
    // The lookup is by the unique hash index; equality on a SHA-256 digest leaks nothing
    // useful, and the cache path above compares in constant time.
    const rows = await this.orm.em
      .getConnection()
      .execute<{ id: string; account_id: string }[]>(
        'select id, account_id from account_token where token_hash = ?',
        [digest],
      );
    const row = rows[0];
    return row ? { kind: 'account', accountId: row.account_id, tokenId: row.id } : null;
  }

  /** Records `lastUsedAt` at most once a minute per credential, off the request path. */
  private touch(principal: Principal, now: number): void {
    const id = principal.kind === 'account' ? principal.tokenId : principal.apiKeyId;
    const last = this.lastUsedWritten.get(id) ?? 0;
    if (now - last < LAST_USED_INTERVAL_MS) return;
    this.lastUsedWritten.set(id, now);
    const table = principal.kind === 'account' ? 'account_token' : 'api_key';
    this.orm.em
      .getConnection()
      .execute(`update ${table} set last_used_at = now() where id = ?`, [id])
      .catch(() => this.lastUsedWritten.delete(id));
  }
}
