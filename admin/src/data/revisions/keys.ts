import { contentsKeys } from '../contents/keys.js';

/** The row whose revisions are read. */
export interface RowRef {
  projectId: string;
  tableId: string;
  contentId: string;
}

/** A row's revisions, under its table's contents: the event feed and a restore refresh them. */
export const revisionKeys = {
  row: (row: RowRef) => [...contentsKeys.table(row.projectId, row.tableId), 'revisions', row.contentId] as const,
  page: (row: RowRef, page: number, size: number) => [...revisionKeys.row(row), 'page', page, size] as const,
  version: (row: RowRef, version: number) => [...revisionKeys.row(row), 'version', version] as const,
  /** What a restore replaces: the live row, or with `draft` the row with its draft applied. */
  current: (row: RowRef, draft: boolean) => [...revisionKeys.row(row), 'current', draft] as const,
};
