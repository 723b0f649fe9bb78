/**
 * The contents grid's keyboard (ContentsTable.tsx; docs/console.md, "The contents grid"), as pure
 * functions of a place in the grid: the moves of the ARIA grid pattern, with the focus on a column
 * header, on a body row, or on one of a row's cells (the moves of react-aria's tables).
 */

/**
 * A place in the grid. `row` 0 is the header row and 1…rows the body rows, as in the <table>'s
 * `rows`; `col` is a cell's index in its row, or ROW for the body row itself.
 */
export interface GridPosition {
  row: number;
  col: number;
}

export const ROW = -1;

export interface GridShape {
  /** Body rows (the header row not counted). */
  rows: number;
  cols: number;
  /** Rows one PageUp or PageDown moves by: about a window's height of them. */
  pageRows: number;
}

/**
 * Where `key` moves the focus from `from`: the same place at an edge, null for a key the grid
 * leaves to the browser. Rows: ←/→ go to the row's last or first cell, ↑/↓ to the row above or
 * below (above the first, the first header), Home/End to the first or last row. Cells: ←/→ along
 * the row and back to the row itself past either end, ↑/↓ in the same column (above the first row,
 * its header), Home/End to the row's first or last cell (with Ctrl, the grid's). Headers: ←/→ wrap
 * around, ↓ to the first row's cell of that column.
 */
export function nextPosition(from: GridPosition, key: string, ctrl: boolean, shape: GridShape): GridPosition | null {
  const { rows, cols } = shape;
  const header = from.row === 0;
  switch (key) {
    case 'ArrowRight':
      if (header) return { row: 0, col: (from.col + 1) % cols };
      if (from.col === ROW) return { row: from.row, col: 0 };
      return { row: from.row, col: from.col + 1 < cols ? from.col + 1 : ROW };
    case 'ArrowLeft':
      if (header) return { row: 0, col: (from.col - 1 + cols) % cols };
      if (from.col === ROW) return { row: from.row, col: cols - 1 };
      return { row: from.row, col: from.col > 0 ? from.col - 1 : ROW };
    case 'ArrowDown':
      if (from.row >= rows) return from;
      return { row: from.row + 1, col: from.col };
    case 'ArrowUp':
      if (header) return from;
      if (from.row > 1) return { row: from.row - 1, col: from.col };
      return { row: 0, col: Math.max(0, from.col) };
    case 'PageDown':
    case 'PageUp': {
      const step = key === 'PageDown' ? 'ArrowDown' : 'ArrowUp';
      let at = from;
      for (let i = 0; i < shape.pageRows; i++) at = nextPosition(at, step, false, shape) ?? at;
      return at;
    }
    case 'Home':
      if (header) return { row: 0, col: 0 };
      if (from.col === ROW) return rows > 0 ? { row: 1, col: ROW } : from;
      return ctrl ? { row: 1, col: 0 } : { row: from.row, col: 0 };
    case 'End':
      if (header) return { row: 0, col: cols - 1 };
      if (from.col === ROW) return { row: rows, col: ROW };
      return ctrl ? { row: rows, col: cols - 1 } : { row: from.row, col: cols - 1 };
    default:
      return null;
  }
}

const collator = new Intl.Collator(undefined, { usage: 'search', sensitivity: 'base' });

/**
 * Type to find a row: the index of the first row, from `from` on and around, whose name starts
 * with `search` (letters compared without case or accents), or null.
 */
export function rowStartingWith(names: readonly string[], search: string, from: number): number | null {
  for (let i = 0; i < names.length; i++) {
    const index = (from + i) % names.length;
    if (collator.compare(names[index].slice(0, search.length), search) === 0) return index;
  }
  return null;
}
