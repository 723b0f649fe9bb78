import type { Rule } from '../modules/roles/role.schema.js';

/** Who is calling: a person (account token) or a project API key (docs/concepts.md#credentials-and-roles). */
export type Principal = AccountPrincipal | ApiKeyPrincipal;

export interface AccountPrincipal {
  kind: 'account';
  accountId: string;
  tokenId: string;
}

export type ApiKeyPermission = 'read' | 'read_write';

/** A custom role granted to the caller (docs/roles.md): its rules, and `version` (its updatedAt, ISO) for caches. */
export interface GrantedRole {
  id: string;
  name: string;
  rules: Rule[];
  version: string;
}

export interface ApiKeyPrincipal {
  kind: 'apiKey';
  apiKeyId: string;
  projectId: string;
  /** Null when the key holds a custom role: exactly one of `permission` and `role` is non-null. */
  permission: ApiKeyPermission | null;
  /** The custom role the key holds (docs/roles.md#granting-a-role), loaded with the key. */
  role: GrantedRole | null;
  allowedHosts: string[];
}
