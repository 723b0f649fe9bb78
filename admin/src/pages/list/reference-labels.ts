import { useMemo } from 'react';
import { useColumnsOfTables, type Column } from '../../data/columns/queries.js';
import { labelColumnOf } from './cells.js';

/**
 * For each single reference column, the column that names the rows it points at (the referenced
 * table's label column): the list sorts such a column by that name through a dotted path
 * (`author.name`), not by the ids it holds. Read through columnsQuery (data/columns), so the cells
 * that show the labels share the answer.
 */
export function useReferenceLabels(projectId: string, columns: Column[] | undefined): Map<string, string> {
  const references = (columns ?? []).filter((c) => c.type === 'reference' && c.settings.multiple !== true && typeof c.settings.table === 'string');
  const results = useColumnsOfTables(projectId, references.map((column) => column.settings.table as string));
  const paths: [string, string][] = [];
  references.forEach((column, i) => {
    const label = results[i]?.data ? labelColumnOf(results[i].data) : undefined;
    if (label) paths.push([column.name, `${column.name}.${label.name}`]);
  });
  // The same Map while the paths stay the same: the grid rebuilds its cells when it changes.
  const key = JSON.stringify(paths);
  return useMemo(() => new Map<string, string>(JSON.parse(key) as [string, string][]), [key]);
}
