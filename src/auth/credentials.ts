import type { Orm } from '../db/orm.js';
import { runSqlOnPool } from '../db/sql.js';
import { unauthorized } from '../errors/app-error.js';
import { accountTokenByHash, apiKeyByHash, touchCredential } from './auth.sql.js';
import { grantedRoleOf, type GrantedRoleRow } from './granted-role.js';
import type { ApiKeyPermission, Principal } from './principal.js';
import { TtlCache } from '../shared/ttl-cache.js';
import { ACCOUNT_TOKEN_PREFIX, SECRET_SHAPE, sameDigest, sha256 } from '../shared/secrets.js';

/** Trusted for CREDENTIAL_CACHE_MS; the credential itself is valid until `validUntil`. */
interface CacheEntry extends Resolved {
  digest: Buffer;
}

/**
 * How long a resolved credential is trusted without asking the database again. A deleted or
 * deactivated credential is therefore refused within this window on every API process, and a
 * key's changed grant or role (docs/roles.md#granting-a-role), which is cached with it, applies;
 * the process that made the change forgets its entries at once (`invalidate`).
 */
export const CREDENTIAL_CACHE_MS = 500;
/** `lastUsedAt` is written at most this often per credential: no write per request. */
const LAST_USED_INTERVAL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

/** Parses `Authorization: Bearer <secret>`; anything else is 401 (docs/reliability.md#errors). */
export function bearerSecret(header: string | undefined): string {
  if (!header) throw unauthorized('Missing Authorization header');
  const match = /^Bearer +(\S+)\s*$/.exec(header);
  if (!match) throw unauthorized('Authorization header must be "Bearer <token>"');
  return match[1];
}

interface Resolved {
  principal: Principal;
  /** expiresAt, or the end of a rotation grace; Infinity when neither. */
  validUntil: number;
}

export class CredentialResolver {
  private readonly cache = new TtlCache<string, CacheEntry>({ ttlMs: CREDENTIAL_CACHE_MS, maxEntries: CACHE_MAX_ENTRIES });
  /** Credentials whose `lastUsedAt` was written within the last LAST_USED_INTERVAL_MS. */
  private readonly lastUsedWritten = new TtlCache<string, true>({ ttlMs: LAST_USED_INTERVAL_MS, maxEntries: CACHE_MAX_ENTRIES });

  constructor(private readonly orm: Orm) {}

  /** Resolves the Authorization header into a principal, or throws 401. */
  async resolve(header: string | undefined): Promise<Principal> {
    const secret = bearerSecret(header);
    if (!SECRET_SHAPE.test(secret)) throw unauthorized('Unknown token or key');
    const digest = sha256(secret);
    const cacheKey = digest.toString('hex');
    const now = Date.now();
    const cached = this.cache.get(cacheKey);
    if (cached && sameDigest(cached.digest, digest)) {
      if (cached.validUntil > now) return cached.principal;
      throw unauthorized('Expired key');
    }
    const resolved = secret.startsWith(ACCOUNT_TOKEN_PREFIX) ? await this.findAccountToken(digest) : await this.findApiKey(digest);
    if (!resolved || resolved.validUntil <= now) {
      this.cache.delete(cacheKey);
      throw unauthorized('Unknown, deleted, deactivated or expired token or key');
    }
    this.cache.set(cacheKey, { ...resolved, digest });
    this.touch(resolved.principal);
    return resolved.principal;
  }

  /** Forgets every cached credential (after this process changed one, a grant or a role). */
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
      GrantedRoleRow & {
        id: string;
        project_id: string;
        permission: ApiKeyPermission | null;
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
        role: grantedRoleOf(row),
        allowedHosts: row.allowed_hosts,
      },
      validUntil: Math.min(Infinity, ...limits),
    };
  }

  /** Records `lastUsedAt` at most once a minute per credential, off the request path. */
  private touch(principal: Principal): void {
    const id = principal.kind === 'account' ? principal.tokenId : principal.apiKeyId;
    if (this.lastUsedWritten.get(id)) return;
    this.lastUsedWritten.set(id, true);
    runSqlOnPool(this.orm.em, touchCredential(principal.kind, id)).catch(() => this.lastUsedWritten.delete(id));
  }
}
