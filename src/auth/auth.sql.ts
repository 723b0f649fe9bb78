import type { SqlQuery } from '../db/sql.js';
import { GRANTED_ROLE_COLUMNS } from './granted-role.js';

/** The account token with this hash (a unique index). */
export const accountTokenByHash = (digest: Buffer): SqlQuery => ({
  text: 'select id, account_id from account_token where token_hash = $1',
  values: [digest],
});

/**
 * The active API key whose current or previous value has this hash, if its project and
 * workspace are live; `grace_until` is set when the match is the previous value. The custom
 * role the key holds comes in the same statement, so a request costs no second look-up.
 */
export const apiKeyByHash = (digest: Buffer): SqlQuery => ({
  text: `select k.id, k.project_id, k.permission, k.allowed_hosts, k.expires_at,
                case when k.key_hash = $1 then null else k.previous_expires_at end as grace_until,
                ${GRANTED_ROLE_COLUMNS}
           from api_key k
           join project p on p.id = k.project_id and p.deleted_at is null
           join workspace w on w.id = p.workspace_id and w.deleted_at is null
           left join role r on r.id = k.role_id
          where (k.key_hash = $1 or k.previous_key_hash = $1) and k.active`,
  values: [digest],
});

/** An account's membership of a project: its built-in role, or the custom role it holds (one statement). */
export const projectMembership = (projectId: string, accountId: string): SqlQuery => ({
  text: `select m.role, ${GRANTED_ROLE_COLUMNS}
           from project_member m
           left join role r on r.id = m.role_id
          where m.project_id = $1 and m.account_id = $2`,
  values: [projectId, accountId],
});

/** Records that a credential was just used. */
export const touchCredential = (kind: 'account' | 'apiKey', id: string): SqlQuery => ({
  text: `update ${kind === 'account' ? 'account_token' : 'api_key'} set last_used_at = now() where id = $1`,
  values: [id],
});
