import type { RouterOutputs } from 'tabula/client';
import { useApi } from '../api.js';
import { revisionKeys, type RowRef } from './keys.js';

export type Revision = RouterOutputs['revisions']['get'];

export function useRevisionPage(row: RowRef, page: number, size: number) {
  return useApi(revisionKeys.page(row, page, size), (client) => client.revisions.list.query({ projectId: row.projectId, tableId: row.tableId, contentsId: row.contentId, page, size }), {
    keepPrevious: true,
  });
}

export function useRevision(row: RowRef, version: number, enabled: boolean) {
  return useApi(revisionKeys.version(row, version), (client) => client.revisions.get.query({ projectId: row.projectId, tableId: row.tableId, contentsId: row.contentId, version: String(version) }), {
    enabled,
  });
}

/**
 * What a restore replaces: the live row, or with `draft` the row with its pending draft applied
 * (the live row when it has none), where a restore into the draft goes.
 */
export function useCurrentRow(row: RowRef, enabled: boolean, draft = false) {
  return useApi(
    revisionKeys.current(row, draft),
    (client) => client.contents.get.query({ projectId: row.projectId, tableId: row.tableId, contentsId: row.contentId, version: draft ? 'draft' : undefined }),
    { enabled },
  );
}
