import { useColumnsOfTables } from '../../data/columns/queries.js';
import { useRowsOfTables } from '../../data/contents/queries.js';
import { useFiles } from '../../data/files/queries.js';
import { useProject } from '../../data/projects/context.js';
import { labelColumnOf, rowLabel } from '../list/cells.js';
import type { DiffColumn, Snapshot } from './diff.js';

/** The ids a reference or file value holds (one id, or a list of them). */
function idsOf(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter((v): v is string => typeof v === 'string' && v !== '');
}

/**
 * Names for the ids the diff shows: each referenced row by its label as the contents list shows
 * it (the referenced table's label column), each file by its name. Rows and files are read with
 * the keys and shapes of the list and the editor, so they share the cache. A row or file that is
 * gone is said so; one still loading shows an ellipsis, never its id.
 */
export function useDiffNames(columns: DiffColumn[], snapshots: (Snapshot | null | undefined)[]): ReadonlyMap<string, string> {
  const project = useProject();
  const projectId = project.id;
  const referenceIds = new Map<string, Set<string>>();
  const fileIds = new Set<string>();
  for (const column of columns) {
    const target = column.settings.table;
    const isReference = column.type === 'reference' && typeof target === 'string';
    if (!isReference && column.type !== 'file') continue;
    for (const snapshot of snapshots) {
      for (const id of idsOf(snapshot?.data[column.name])) {
        if (isReference) referenceIds.set(target, (referenceIds.get(target) ?? new Set()).add(id));
        else fileIds.add(id);
      }
    }
  }
  const tables = [...referenceIds].map(([tableId, ids]) => ({ tableId, ids: [...ids].sort() }));
  const files = [...fileIds].sort();

  const tableColumns = useColumnsOfTables(projectId, tables.map(({ tableId }) => tableId));
  const rows = useRowsOfTables(projectId, tables);
  const fileAnswers = useFiles(projectId, files);

  const names = new Map<string, string>();
  tables.forEach(({ ids }, i) => {
    const found = rows[i]?.data?.list;
    const label = tableColumns[i]?.data ? labelColumnOf(tableColumns[i].data) : undefined;
    const settled = (rows[i]?.isFetched ?? false) && (tableColumns[i]?.isFetched ?? false);
    for (const id of ids) {
      const row = found?.find((r) => r.id === id);
      names.set(id, row && settled ? rowLabel(row, label, project.defaultLocale, project.defaultLocale) : settled ? 'a deleted row' : '…');
    }
  });
  files.forEach((fileId, i) => {
    const file = fileAnswers[i];
    names.set(fileId, file?.data ? file.data.name : file?.isError ? 'a deleted file' : '…');
  });
  return names;
}
