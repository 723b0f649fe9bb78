import type { RouterOutputs } from 'tabula/client';
import { ALL } from '../../layout/Shell.js';
import { useApi } from '../../query.js';
import type { ActorNames } from './summary.js';

export type Revision = RouterOutputs['revisions']['get'];

/** What the panel reads of one row. Under the table's `contents`, which the event feed and a restore refresh. */
export interface RowRef {
  projectId: string;
  tableId: string;
  contentId: string;
}

const rowKey = (row: RowRef) => ['project', row.projectId, 'contents', row.tableId, 'revisions', row.contentId];
export const contentsKey = (row: RowRef) => ['project', row.projectId, 'contents', row.tableId];

export function useRevisionPage(row: RowRef, page: number, size: number) {
  return useApi([...rowKey(row), 'page', page, size], (client) => client.revisions.list.query({ projectId: row.projectId, tableId: row.tableId, contentsId: row.contentId, page, size }), {
    keepPrevious: true,
  });
}

export function useRevision(row: RowRef, version: number, enabled: boolean) {
  return useApi([...rowKey(row), 'version', version], (client) => client.revisions.get.query({ projectId: row.projectId, tableId: row.tableId, contentsId: row.contentId, version: String(version) }), {
    enabled,
  });
}

/**
 * What a restore replaces: the live row, or with `draft` the row with its pending draft applied
 * (the live row when it has none), where a restore into the draft goes.
 */
export function useCurrentRow(row: RowRef, enabled: boolean, draft = false) {
  return useApi(
    [...rowKey(row), 'current', draft],
    (client) => client.contents.get.query({ projectId: row.projectId, tableId: row.tableId, contentsId: row.contentId, version: draft ? 'draft' : undefined }),
    { enabled },
  );
}

/**
 * Names for the revisions' actors: the workspace's members and the project's API keys. Listing
 * keys is for project admins only; for others a key is named by its id, as is an account that
 * has left the workspace.
 */
export function useActorNames(workspaceId: string, projectId: string): ActorNames {
  const me = useApi(['me'], (client) => client.accounts.me.query({}));
  const members = useApi(['workspace', workspaceId, 'members', 'names'], (client) => client.workspaceMembers.list.query({ workspaceId, ...ALL }));
  const keys = useApi(['project', projectId, 'keys', 'names'], (client) => client.apiKeys.list.query({ projectId, ...ALL }));
  return {
    me: me.data?.id,
    accounts: new Map((members.data?.list ?? []).map((member) => [member.accountId, member.name || member.email])),
    apiKeys: new Map((keys.data?.list ?? []).map((key) => [key.id, key.name])),
  };
}
