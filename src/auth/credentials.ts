import type { Orm } from '../db/orm.js';
import { runSqlOnPool } from '../db/sql.js';
import { unauthorized } from '../errors/app-error.js';
import { accountTokenByHash, apiKeyByHash, touchCredential } from './auth.sql.js';
import type { ApiKeyPermission, Principal } from './principal.js';
import { ACCOUNT_TOKEN_PREFIX, SECRET_SHAPE, sameDigest, sha256 } from './secrets.js';

interface CacheEntry {
  principal: Principal;
  digest: Buffer;
  /** The cache entry is trusted until then... */
  cachedUntil: number;
  /** ...and the credential itself is valid until then (expiresAt, end of a rotation grace). */
  validUntil: number;
}

/**
 * How long a resolved credential is trusted without asking the database again. A deleted or
 * deactivated credential is therefore refused within this window on every API process; the
 * process that made the change forgets its entries at once (`invalidate`).
 */
export const CREDENTIAL_CACHE_MS = 500;
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

interface Resolved {
  principal: Principal;
  validUntil: number;
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
    const now = Date.now();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.cachedUntil > now && sameDigest(cached.digest, digest)) {
      if (cached.validUntil > now) return cached.principal;
      throw unauthorized('Expired key');
    }
    const resolved = secret.startsWith(ACCOUNT_TOKEN_PREFIX) ? await this.findAccountToken(digest) : await this.findApiKey(digest);
    if (!resolved || resolved.validUntil <= now) {
      this.cache.delete(cacheKey);
      throw unauthorized('Unknown, deleted, deactivated or expired token or key');
    }
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(cacheKey, { ...resolved, digest, cachedUntil: now + CREDENTIAL_CACHE_MS });
    this.touch(resolved.principal, now);
    return resolved.principal;
  }

  /** Forgets every cached credential (after this process changed one). */
  invalidate(): void {
    this.cache.clear();
  }

  private async findAccountToken(digest: Buffer): Promise<Resolved | null> {
    // Looked up by the unique hash index: the digest of a random 256-bit secret reveals nothing
    // through timing, and cached digests are compared in constant time.
    const rows = await runSqlOnPool<{ id: string; account_id: string }>(this.orm.em, accountTokenByHash(digest));
    const row = rows[0];
    return row ? { principal: { kind: 'account', accountId: row.account_id, tokenId: row.id }, validUntil: Infinity } : null;
  }

  private async findApiKey(digest: Buffer): Promise<Resolved | null> {
    // The current value, or the previous one during its rotation grace. A key of a deleted
    // project or workspace is as good as deleted.
    const rows = await runSqlOnPool<
      {
        id: string;
        project_id: string;
        permission: ApiKeyPermission;
        allowed_hosts: string[];
        // The ORM's connection returns timestamps as strings.
        expires_at: Date | string | null;
        grace_until: Date | string | null;
      }
    >(this.orm.em, apiKeyByHash(digest));
    const row = rows[0];
    if (!row) return null;
    const limits = [row.expires_at, row.grace_until].filter((d) => d !== null).map((d) => new Date(d).getTime());
    return {
      principal: {
        kind: 'apiKey',
        apiKeyId: row.id,
        projectId: row.project_id,
        permission: row.permission,
        allowedHosts: row.allowed_hosts,
      },
      validUntil: Math.min(Infinity, ...limits),
    };
  }

  /** Records `lastUsedAt` at most once a minute per credential, off the request path. */
  private touch(principal: Principal, now: number): void {
    const id = principal.kind === 'account' ? principal.tokenId : principal.apiKeyId;
    const last = this.lastUsedWritten.get(id) ?? 0;
    if (now - last < LAST_USED_INTERVAL_MS) return;
    if (this.lastUsedWritten.size >= CACHE_MAX_ENTRIES) this.lastUsedWritten.clear();
    this.lastUsedWritten.set(id, now);
    runSqlOnPool(this.orm.em, touchCredential(principal.kind, id)).catch(() => this.lastUsedWritten.delete(id));
  }
}
