import type { SqlQuery } from '../db/sql.js';

/** The account token with this hash (a unique index). */
export const accountTokenByHash = (digest: Buffer): SqlQuery => ({
  text: 'select id, account_id from account_token where token_hash = $1',
  values: [digest],
});

/**
 * The active API key whose current or previous value has this hash, if its project and
 * workspace are live; `grace_until` is set when the match is the previous value.
 */
export const apiKeyByHash = (digest: Buffer): SqlQuery => ({
  text: `select k.id, k.project_id, k.permission, k.allowed_hosts, k.expires_at,
                case when k.key_hash = $1 then null else k.previous_expires_at end as grace_until
           from api_key k
           join project p on p.id = k.project_id and p.deleted_at is null
           join workspace w on w.id = p.workspace_id and w.deleted_at is null
          where (k.key_hash = $1 or k.previous_key_hash = $1) and k.active`,
  values: [digest],
});


/** Records that a credential was just used. */
export const touchCredential = (kind: 'account' | 'apiKey', id: string): SqlQuery => ({
  text: `update ${kind === 'account' ? 'account_token' : 'api_key'} set last_used_at = now() where id = $1`,
  values: [id],
});
