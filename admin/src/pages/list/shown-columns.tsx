import type { RouterOutputs } from 'tabula/client';
import type { Column } from '../../data/columns/queries.js';
import { CellValue, displayLabel, formatInstant, labelColumnOf, rowLabel, StatusBadge } from './cells.js';
import { columnField, isSortable } from './fields.js';

const NOWRAP = new Set(['number', 'integer', 'boolean', 'date', 'datetime']);

export type Item = RouterOutputs['contents']['list']['list'][number];

/** A column of the contents grid. */
export interface Shown {
  /** The sort field of the column (list-state.ts). */
  id: string;
  /** Short values (numbers, dates, badges) stay on one line. */
  nowrap?: boolean;
  name: string;
  sortable: boolean;
  /** A width set by the person (column-prefs.ts), in CSS pixels; none: its values' width. */
  width?: number;
  render(item: Item): React.ReactNode;
}

/**
 * The columns of the grid: the row's name (its label column) first, the others in order, status,
 * last change. A single reference column sorts by the referenced rows' names (`sortPaths`).
 */
export function shownColumns(columns: Column[], sortPaths: Map<string, string>, locale: string, display?: string): Shown[] {
  // The table's display names the row when it has one; its first column is the one sorted by.
  const named = display ? /[A-Za-z][A-Za-z0-9_]*/.exec(display.includes('{{') ? (/\{\{\s*([^}\s]+)/.exec(display)?.[1] ?? '') : display.trim())?.[0] : undefined;
  const labelColumn = (named && columns.find((c) => c.name === named)) || labelColumnOf(columns);
  const title: Shown = {
    id: labelColumn?.name ?? 'row',
    name: labelColumn ? labelColumn.label || labelColumn.name : 'Row',
    sortable: labelColumn ? isSortable(columnField(labelColumn)) : false,
    render: (item) => (
      <span className="list-row-label list-preview">{(display ? displayLabel(display, columns, item, locale) : '') || rowLabel(item, labelColumn, locale, locale)}</span>
    ),
  };
  return [
    title,
    ...columns
      .filter((column) => column !== labelColumn)
      .map((column) => ({
        id: sortPaths.get(column.name) ?? column.name,
        nowrap: NOWRAP.has(column.type),
        name: column.label || column.name,
        sortable: sortPaths.has(column.name) || isSortable(columnField(column)),
        render: (item: Item) => <CellValue column={column} value={item.data?.[column.name]} />,
      })),
    { id: 'status', nowrap: true, name: 'Status', sortable: true, render: (item) => <StatusBadge status={item.status} hasDraft={item.hasDraft} /> },
    { id: 'updatedAt', nowrap: true, name: 'Updated', sortable: true, render: (item) => (item.updatedAt ? <time dateTime={item.updatedAt}>{formatInstant(item.updatedAt)}</time> : null) },
  ];
}
