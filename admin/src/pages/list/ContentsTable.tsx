import { memo, useId, useRef, useState } from 'react';
import { useHref, useNavigate } from 'react-router';
import { nextPosition, ROW, rowStartingWith, type GridPosition } from './grid-keys.js';
import type { SortState } from './list-state.js';
import { ResizeHandle, sizeOf } from './ResizeHandle.js';
import type { Item, Shown } from './shown-columns.js';

/** The header row's key in the grid's focus. */
const HEADER = '';
/** Letters typed within this long of each other make one search for a row by its name. */
const TYPE_SEARCH_MS = 1000;

/** Where the grid's focus is, or was last: a row by its id (or the header) and a cell index, or ROW. */
interface Focus {
  rowId: string;
  col: number;
}

type Modifiers = Pick<MouseEvent, 'metaKey' | 'ctrlKey' | 'shiftKey' | 'altKey'>;

/**
 * The rows of one page as an ARIA grid of plain table elements (docs/console.md, "The contents grid"):
 * one keyboard, click and focus handler on the table for every cell, so a page of 100 rows costs
 * its cells' markup and no more. The focus moves with the arrow keys, Home/End, PageUp/PageDown
 * and by typing a row's name (grid-keys.ts); one place of the grid is in the tab order (roving
 * tabindex): the last focused, else the first row. A header sortable by a click, Enter or Space
 * says its order in `aria-sort`. Each row is a link to its editor: a click or Enter on the row or
 * one of its cells opens it in the console, with a modifier key the browser does as for a link.
 */
export function ContentsTable({ shown, items, sort, onSort, rowsPath, label, selected, onSelect, onWidth }: {
  /** The grid's columns as shown (shown-columns.tsx, less the hidden ones, with the widths set). */
  shown: Shown[];
  items: Item[];
  sort: SortState | null;
  onSort(sort: SortState): void;
  rowsPath: string;
  label: string;
  /** The selected rows' ids (bulk actions); a row's checkbox, or Space on the row, toggles it. */
  selected: ReadonlySet<string>;
  onSelect(ids: string[], on: boolean): void;
  /** A column's width dragged at its header's edge (column-prefs.ts). */
  onWidth(id: string, px: number): void;
}) {
  const navigate = useNavigate();
  const rowsHref = useHref(rowsPath);
  const id = useId();
  const [focus, setFocus] = useState<Focus | null>(null);
  const typed = useRef({ text: '', at: 0 });
  const tabbable = tabbableOf(focus, items, shown.length);

  const sortBy = (field: string) => onSort({ field, direction: sort?.field === field && sort.direction === 'asc' ? 'desc' : 'asc' });

  function openRow(row: HTMLTableRowElement, modifiers: Modifiers) {
    if (modifiers.metaKey || modifiers.ctrlKey || modifiers.shiftKey || modifiers.altKey) openAsLink(row.dataset.href!, modifiers);
    else navigate(`${rowsPath}/${row.dataset.key}`);
  }

  function onClick(event: React.MouseEvent<HTMLTableElement>) {
    // A selection checkbox is its own control: it does not open the row.
    if ((event.target as Element).closest('.list-select, .list-resize')) return;
    const at = positionOf(event.target as Element, event.currentTarget);
    if (!at) return;
    const row = event.currentTarget.rows[at.row];
    if (at.row > 0) openRow(row, event);
    else if (row.cells[at.col].dataset.sort) sortBy(row.cells[at.col].dataset.sort!);
  }

  function onKeyDown(event: React.KeyboardEvent<HTMLTableElement>) {
    const table = event.currentTarget;
    const from = positionOf(event.target as Element, table);
    if (!from) return;
    if (searchByName(event, table, from)) return;
    if (event.key === 'Enter' || event.key === ' ') {
      const header = from.row === 0 ? table.rows[0].cells[from.col] : null;
      if (header?.dataset.sort) {
        event.preventDefault();
        if (!event.repeat) sortBy(header.dataset.sort);
      } else if (!header && event.key === 'Enter' && !event.repeat) openRow(table.rows[from.row], event);
      else if (!header && event.key === ' ' && !(event.target as Element).closest('.list-select')) {
        // Space selects the row (for the bulk actions), as in a list of mail.
        event.preventDefault();
        const rowId = table.rows[from.row].dataset.key!;
        onSelect([rowId], !selected.has(rowId));
      }
      return;
    }
    if (event.altKey || event.metaKey) return;
    const rowHeight = table.rows[from.row].getBoundingClientRect().height || 1;
    const shape = { rows: items.length, cols: shown.length, pageRows: Math.max(1, Math.floor(window.innerHeight / rowHeight) - 1) };
    const next = nextPosition(from, event.key, event.ctrlKey, shape);
    if (!next) return;
    event.preventDefault();
    elementAt(table, next)?.focus();
  }

  /** Type to find a row by its name, from the focused row on; true when the key was taken for it. */
  function searchByName(event: React.KeyboardEvent, table: HTMLTableElement, from: GridPosition): boolean {
    if (event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return false;
    if (event.timeStamp - typed.current.at > TYPE_SEARCH_MS) typed.current.text = '';
    if (event.key === ' ' && typed.current.text.trim() === '') return false;
    typed.current = { text: typed.current.text + event.key, at: event.timeStamp };
    if (event.key === ' ') event.preventDefault();
    const names = Array.from(table.tBodies[0].rows, (row) => (row.dataset.key ? (row.cells[0].textContent ?? '') : ''));
    const found = rowStartingWith(names, typed.current.text, Math.max(0, from.row - 1));
    if (found !== null) elementAt(table, { row: found + 1, col: from.row > 0 && from.col !== ROW ? 0 : ROW })?.focus();
    return true;
  }

  function onFocus(event: React.FocusEvent<HTMLTableElement>) {
    const at = positionOf(event.target, event.currentTarget);
    if (!at) return;
    const rowId = at.row === 0 ? HEADER : event.currentTarget.rows[at.row].dataset.key!;
    setFocus((last) => (last?.rowId === rowId && last.col === at.col ? last : { rowId, col: at.col }));
  }

  const sortableId = `${id}-sortable`;
  return (
    <div className="list-scroll">
      <table role="grid" aria-multiselectable="true" aria-label={label} className={shown.some((c) => c.width) ? 'data-table list-table list-resized' : 'data-table list-table'} onClick={onClick} onKeyDown={onKeyDown} onFocus={onFocus}>
        <thead role="rowgroup">
          <tr role="row">
            {shown.map((column, index) => (
              <HeaderCell
                key={column.id}
                column={column}
                direction={sort?.field === column.id ? sort.direction : null}
                tabbable={tabbable.rowId === HEADER && tabbable.col === index}
                describedBy={sortableId}
                onWidth={onWidth}
                selectAll={index === 0 && items.length > 0 ? { checked: items.every((i) => selected.has(i.id)), onChange: (on) => onSelect(items.map((i) => i.id), on) } : undefined}
              />
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {items.map((item) => (
            <GridRow
              key={item.id}
              item={item}
              shown={shown}
              href={`${rowsHref}/${item.id}`}
              labelId={`${id}-${item.id}`}
              tabbable={tabbable.rowId === item.id ? tabbable.col : null}
              isSelected={selected.has(item.id)}
              onSelect={onSelect}
            />
          ))}
          {items.length === 0 && (
            <tr role="row">
              <td role="rowheader" colSpan={shown.length}>
                <p className="empty">No rows match.</p>
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <span id={sortableId} hidden>
        sortable column
      </span>
    </div>
  );
}

const HeaderCell = memo(function HeaderCell({ column, direction, tabbable, describedBy, selectAll, onWidth }: {
  column: Shown;
  direction: 'asc' | 'desc' | null;
  tabbable: boolean;
  describedBy: string;
  selectAll?: { checked: boolean; onChange(on: boolean): void };
  onWidth(id: string, px: number): void;
}) {
  const ariaSort = direction === 'asc' ? 'ascending' : direction === 'desc' ? 'descending' : 'none';
  return (
    <th role="columnheader" {...sizeOf(column)} tabIndex={tabbable ? 0 : -1} data-sort={column.sortable ? column.id : undefined} aria-sort={column.sortable ? ariaSort : undefined} aria-describedby={column.sortable ? describedBy : undefined}>
      {selectAll && (
        <input type="checkbox" className="list-select" tabIndex={-1} aria-label="Select the rows of this page" checked={selectAll.checked} onChange={(e) => selectAll.onChange(e.target.checked)} onClick={(e) => e.stopPropagation()} />
      )}
      <span className="list-header">
        {column.name}
        {column.sortable && (
          <span aria-hidden="true" className="list-sort-mark">
            {direction === 'asc' ? '▲' : direction === 'desc' ? '▼' : '↕'}
          </span>
        )}
      </span>
      <ResizeHandle onWidth={(px) => onWidth(column.id, px)} />
    </th>
  );
});

/** One row: named by its first cell; `tabbable` is the index of its cell in the tab order, ROW for itself. */
const GridRow = memo(function GridRow({ item, shown, href, labelId, tabbable, isSelected, onSelect }: {
  item: Item;
  shown: Shown[];
  href: string;
  labelId: string;
  tabbable: number | null;
  isSelected: boolean;
  onSelect(ids: string[], on: boolean): void;
}) {
  return (
    <tr role="row" className="list-row" tabIndex={tabbable === ROW ? 0 : -1} data-key={item.id} data-href={href} aria-labelledby={labelId} aria-selected={isSelected}>
      {shown.map((column, index) =>
        index === 0 ? (
          <td key={column.id} role="rowheader" {...sizeOf(column)} tabIndex={tabbable === 0 ? 0 : -1}>
            <input type="checkbox" className="list-select" tabIndex={-1} aria-labelledby={labelId} checked={isSelected} onChange={(e) => onSelect([item.id], e.target.checked)} />
            <span id={labelId}>{column.render(item)}</span>
          </td>
        ) : (
          <td key={column.id} role="gridcell" {...sizeOf(column, column.nowrap ? 'list-nowrap' : undefined)} tabIndex={tabbable === index ? 0 : -1}>
            {column.render(item)}
          </td>
        ),
      )}
    </tr>
  );
});

/** The place in the tab order: the last focused while its row is on the page, else the first row (the first header without rows). */
function tabbableOf(focus: Focus | null, items: Item[], cols: number): Focus {
  if (focus && focus.col < cols && (focus.rowId === HEADER || items.some((item) => item.id === focus.rowId))) return focus;
  return items.length > 0 ? { rowId: items[0].id, col: ROW } : { rowId: HEADER, col: 0 };
}

/** The grid place of an element of `table`: its header cell, body row or body cell; null elsewhere (the empty state's row). */
function positionOf(target: Element, table: HTMLTableElement): GridPosition | null {
  const row = target.closest('tr');
  if (!row || row.closest('table') !== table) return null;
  if (row.parentElement !== table.tHead && !row.dataset.key) return null;
  const cell = target.closest('td, th');
  return { row: row.rowIndex, col: cell && row.contains(cell) ? (cell as HTMLTableCellElement).cellIndex : ROW };
}

function elementAt(table: HTMLTableElement, at: GridPosition): HTMLElement | undefined {
  const row = table.rows[at.row];
  return at.col === ROW ? row : row?.cells[at.col];
}

/**
 * Opens `href` as the browser opens a link clicked with these modifiers (a new tab, a new window,
 * a download): a link outside the console's root, so the click reaches no handler of the grid.
 */
function openAsLink(href: string, modifiers: Modifiers) {
  const link = document.createElement('a');
  link.href = href;
  document.body.appendChild(link);
  link.dispatchEvent(new MouseEvent('click', { ...pick(modifiers), bubbles: true, cancelable: true, detail: 1 }));
  link.remove();
}

const pick = ({ metaKey, ctrlKey, shiftKey, altKey }: Modifiers): Modifiers => ({ metaKey, ctrlKey, shiftKey, altKey });
