/** The account's workspaces, and what is read under one workspace (docs/console.md#data-and-query-keys). */
export const workspaceKeys = {
  list: () => ['workspaces'] as const,
  /** Everything read under one workspace (its projects, members and usage) starts with this. */
  all: (workspaceId: string | undefined) => ['workspace', workspaceId] as const,
  /** The workspace itself is read under its scope's key. */
  detail: (workspaceId: string | undefined) => workspaceKeys.all(workspaceId),
  /** The members, read to name the authors of revisions. */
  memberNames: (workspaceId: string) => [...workspaceKeys.all(workspaceId), 'members', 'names'] as const,
};
