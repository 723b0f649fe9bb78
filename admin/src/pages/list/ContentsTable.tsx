import { useMemo } from 'react';
import { Cell, Column as AriaColumn, Row, RouterProvider, Table, TableBody, TableHeader, type SortDescriptor } from 'react-aria-components';
import { useHref, useNavigate } from 'react-router';
import type { RouterOutputs } from 'tabula/client';
import type { Column } from '../../data/columns/queries.js';
import { useProject } from '../../data/projects/context.js';
import { CellValue, formatInstant, labelColumnOf, rowLabel, StatusBadge } from './cells.js';
import { columnField, isSortable } from './fields.js';
import type { SortState } from './list-state.js';

const NOWRAP = new Set(['number', 'integer', 'boolean', 'date', 'datetime']);

type Item = RouterOutputs['contents']['list']['list'][number];

interface Shown {
  id: string;
  /** Short values (numbers, dates, badges) stay on one line. */
  nowrap?: boolean;
  name: string;
  sortable: boolean;
  render(item: Item): React.ReactNode;
}

/**
 * The rows of one page as a grid (react-aria Table: arrow keys move between rows and cells, Enter
 * or Space on a header sorts by it, `aria-sort` says how). Each row is a link to its editor (a
 * click, or Enter on the focused row, opens it; react-aria's router hook keeps it a client-side
 * navigation). The first column names the row; the table's other columns follow in their order,
 * then the status and the last change.
 */
export function ContentsTable({ columns, sortPaths, items, sort, onSort, rowsPath, label }: { columns: Column[]; sortPaths: Map<string, string>; items: Item[]; sort: SortState | null; onSort(sort: SortState): void; rowsPath: string; label: string }) {
  const project = useProject();
  // The columns shown, built once per schema: the grid rebuilds every cell when they change.
  const { shown, title } = useMemo(() => shownColumns(columns, sortPaths, project.defaultLocale), [columns, sortPaths, project.defaultLocale]);
  const descriptor: SortDescriptor | undefined = sort ? { column: sort.field, direction: sort.direction === 'asc' ? 'ascending' : 'descending' } : undefined;
  const navigate = useNavigate();
  return (
    <RouterProvider navigate={navigate} useHref={useHref}>
      <div className="list-scroll">
        <Table
          aria-label={label}
          className="data-table list-table"
          sortDescriptor={descriptor}
          onSortChange={(next) => onSort({ field: String(next.column), direction: next.direction === 'descending' ? 'desc' : 'asc' })}
        >
          <TableHeader columns={shown}>
            {(column) => (
              <AriaColumn id={column.id} isRowHeader={column === title} allowsSorting={column.sortable} textValue={column.name}>
                {({ sortDirection }) => (
                  <span className="list-header">
                    {column.name}
                    {column.sortable && (
                      <span aria-hidden="true" className="list-sort-mark">
                        {sortDirection === 'ascending' ? '▲' : sortDirection === 'descending' ? '▼' : '↕'}
                      </span>
                    )}
                  </span>
                )}
              </AriaColumn>
            )}
          </TableHeader>
          <TableBody items={items} dependencies={[shown]} renderEmptyState={() => <p className="empty">No rows match.</p>}>
            {(item) => (
              <Row id={item.id} href={`${rowsPath}/${item.id}`} columns={shown} dependencies={[shown]} className="list-row">
                {(column) => <Cell className={column.nowrap ? 'list-nowrap' : undefined}>{column.render(item)}</Cell>}
              </Row>
            )}
          </TableBody>
        </Table>
      </div>
    </RouterProvider>
  );
}

/**
 * The columns of the grid: the row's name (its label column) first, the others in order, status,
 * last change. A single reference column sorts by the referenced rows' names (`sortPaths`).
 */
function shownColumns(columns: Column[], sortPaths: Map<string, string>, locale: string): { shown: Shown[]; title: Shown } {
  const labelColumn = labelColumnOf(columns);
  const title: Shown = {
    id: labelColumn?.name ?? 'row',
    name: labelColumn ? labelColumn.label || labelColumn.name : 'Row',
    sortable: labelColumn ? isSortable(columnField(labelColumn)) : false,
    render: (item) => <span className="list-row-label list-preview">{rowLabel(item, labelColumn, locale, locale)}</span>,
  };
  const shown: Shown[] = [
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
  return { shown, title };
}
