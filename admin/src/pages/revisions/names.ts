import { useQueries } from '@tanstack/react-query';
import { useProject } from '../../layout/Shell.js';
import { columnsQuery } from '../../schema.js';
import { useClient } from '../../session.js';
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
  const client = useClient();
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

  const tableColumns = useQueries({ queries: tables.map(({ tableId }) => columnsQuery(client, projectId, tableId)) });
  const rows = useQueries({
    queries: tables.map(({ tableId, ids }) => ({
      queryKey: ['project', projectId, 'contents', tableId, 'labels', ids],
      queryFn: () => client.contents.list.query({ projectId, tableId, filter: JSON.stringify([{ i: 'id', w: 'in', v: ids }]), size: ids.length, withCount: 'false' }),
    })),
  });
  const fileAnswers = useQueries({
    queries: files.map((fileId) => ({
      queryKey: ['project', projectId, 'files', fileId],
      queryFn: () => client.files.get.query({ projectId, fileId }),
      retry: false,
    })),
  });

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
