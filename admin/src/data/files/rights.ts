import { useMyAccess } from '../projects/access.js';
import { useExplain } from '../roles/queries.js';

/** The file buttons the signed-in member may be shown. */
export interface FileRights {
  /** Known yet: nothing is offered before. */
  ready: boolean;
  upload: boolean;
  replace: boolean;
  delete: boolean;
}

const NONE: FileRights = { ready: false, upload: false, replace: false, delete: false };

/**
 * What the signed-in member may do with the file library (docs/console.md#what-a-member-sees): a
 * built-in role by its level (EDITOR and ADMIN write, VIEWER reads); a custom role by its `$files`
 * rules, as `GET …/access/explain?table=$files` tells them (docs/roles.md#explain), for one file
 * when `fileId` is given: a rule's `where` may hold some files only ("names starting draft-").
 */
export function useFileRights(workspaceId: string, projectId: string, fileId?: string): FileRights {
  const access = useMyAccess(workspaceId, projectId);
  const custom = access.customRoleId !== null;
  const library = useExplain(projectId, custom ? { table: '$files' } : null);
  const file = useExplain(projectId, custom && fileId ? { table: '$files', contentsId: fileId } : null);
  if (!access.ready) return NONE;
  if (!custom) return { ready: true, upload: access.canWrite, replace: access.canWrite, delete: access.canWrite };
  const actions = fileId ? file.data?.actions : library.data?.actions;
  if (!actions || !library.data) return NONE;
  return { ready: true, upload: library.data.actions.create.allowed, replace: actions.update.allowed, delete: actions.delete.allowed };
}
