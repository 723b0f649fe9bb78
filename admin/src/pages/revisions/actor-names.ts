import { useApiKeyNames } from '../../data/api-keys/queries.js';
import { useMe } from '../../data/session/queries.js';
import { useWorkspaceMembers } from '../../data/workspaces/queries.js';
import type { ActorNames } from './summary.js';

/**
 * Names for the revisions' actors: the workspace's members and the project's API keys. Listing
 * keys is for project admins only; for others a key is named by its id, as is an account that
 * has left the workspace.
 */
export function useActorNames(workspaceId: string, projectId: string): ActorNames {
  const me = useMe();
  const members = useWorkspaceMembers(workspaceId);
  const keys = useApiKeyNames(projectId);
  return {
    me: me.data?.id,
    accounts: new Map((members.data?.list ?? []).map((member) => [member.accountId, member.name || member.email])),
    apiKeys: new Map((keys.data?.list ?? []).map((key) => [key.id, key.name])),
  };
}
