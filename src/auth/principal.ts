/** Who is calling: a person (account token) or a project API key (docs/concepts.md#credentials-and-roles). */
export type Principal = AccountPrincipal | ApiKeyPrincipal;

export interface AccountPrincipal {
  kind: 'account';
  accountId: string;
  tokenId: string;
}

export type ApiKeyPermission = 'read' | 'read_write';

export interface ApiKeyPrincipal {
  kind: 'apiKey';
  apiKeyId: string;
  projectId: string;
  permission: ApiKeyPermission;
  allowedHosts: string[];
}
