import { describe, expect, it } from 'vitest';
import { nextPosition, ROW, rowStartingWith, type GridShape } from '../../admin/src/pages/list/grid-keys.js';

/** The contents grid's moves (docs/console.md, "The contents grid") at the edges the browser test does not reach. */
const shape: GridShape = { rows: 3, cols: 4, pageRows: 2 };
const move = (row: number, col: number, key: string, ctrl = false) => nextPosition({ row, col }, key, ctrl, shape);

describe('the contents grid keys', () => {
  it('wraps around the headers and goes down into the column’s first cell', () => {
    expect(move(0, 3, 'ArrowRight')).toEqual({ row: 0, col: 0 });
    expect(move(0, 0, 'ArrowLeft')).toEqual({ row: 0, col: 3 });
    expect(move(0, 2, 'ArrowDown')).toEqual({ row: 1, col: 2 });
    expect(move(0, 2, 'ArrowUp')).toEqual({ row: 0, col: 2 });
    expect(move(0, 2, 'End')).toEqual({ row: 0, col: 3 });
    expect(nextPosition({ row: 0, col: 1 }, 'ArrowDown', false, { ...shape, rows: 0 })).toEqual({ row: 0, col: 1 });
  });

  it('moves a focused row to its cells and between rows, and a cell back to its row past either end', () => {
    expect(move(2, ROW, 'ArrowRight')).toEqual({ row: 2, col: 0 });
    expect(move(2, ROW, 'ArrowLeft')).toEqual({ row: 2, col: 3 });
    expect(move(2, 3, 'ArrowRight')).toEqual({ row: 2, col: ROW });
    expect(move(2, 0, 'ArrowLeft')).toEqual({ row: 2, col: ROW });
    expect(move(1, ROW, 'ArrowUp')).toEqual({ row: 0, col: 0 });
    expect(move(3, ROW, 'ArrowDown')).toEqual({ row: 3, col: ROW });
    expect(move(2, ROW, 'Home')).toEqual({ row: 1, col: ROW });
    expect(move(1, ROW, 'End')).toEqual({ row: 3, col: ROW });
  });

  it('moves by a page of rows in the same column and stops at the grid’s ends', () => {
    expect(move(1, 2, 'PageDown')).toEqual({ row: 3, col: 2 });
    expect(move(2, 2, 'PageDown')).toEqual({ row: 3, col: 2 });
    expect(move(3, ROW, 'PageUp')).toEqual({ row: 1, col: ROW });
    expect(move(1, 2, 'PageUp')).toEqual({ row: 0, col: 2 });
  });

  it('leaves other keys to the browser', () => {
    expect(move(1, 1, 'Tab')).toBeNull();
    expect(move(1, 1, 'a')).toBeNull();
  });

  it('finds a row by the start of its name, from the focused row on and around, without case or accents', () => {
    const names = ['Harbour', 'Tide', 'Ferry', 'Tidal wave'];
    expect(rowStartingWith(names, 'tid', 0)).toBe(1);
    expect(rowStartingWith(names, 'tid', 2)).toBe(3);
    expect(rowStartingWith(names, 'HAR', 3)).toBe(0);
    expect(rowStartingWith(names, 'férry', 0)).toBe(2);
    expect(rowStartingWith(names, 'x', 0)).toBeNull();
  });
});
