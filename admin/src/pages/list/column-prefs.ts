import { useCallback, useMemo, useState } from 'react';

/**
 * What a person chose to see of a table's list on this device: the columns hidden and the widths
 * set (docs/console.md, "Columns shown"). Kept in localStorage per table, not in the address:
 * they are a person's view, not what a shared link lists.
 */
export interface ColumnPrefs {
  /** Ids of the grid's columns (shown-columns.tsx) not shown. The first column, the row's name, is always shown. */
  hidden: string[];
  /** Widths in CSS pixels by column id; a column without one takes the width of its values. */
  widths: Record<string, number>;
}

export const MIN_WIDTH = 64;
export const MAX_WIDTH = 960;
const EMPTY: ColumnPrefs = { hidden: [], widths: {} };
const storageKey = (tableId: string) => `tabula.list.columns.${tableId}`;

export const clampWidth = (px: number): number => Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, Math.round(px)));

function read(tableId: string): ColumnPrefs {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(tableId)) ?? 'null');
    if (typeof parsed !== 'object' || parsed === null) return EMPTY;
    const { hidden, widths } = parsed as Partial<ColumnPrefs>;
    const sized = Object.entries(typeof widths === 'object' && widths !== null ? widths : {}).filter(([, w]) => typeof w === 'number' && Number.isFinite(w));
    return {
      hidden: Array.isArray(hidden) ? hidden.filter((h): h is string => typeof h === 'string') : [],
      widths: Object.fromEntries(sized.map(([id, w]) => [id, clampWidth(w)])),
    };
  } catch {
    // A hand-edited or foreign value: the table's default view.
    return EMPTY;
  }
}

/** The table's column prefs and their setters; each change is stored at once. */
export function useColumnPrefs(tableId: string) {
  const [state, setState] = useState(() => ({ tableId, prefs: read(tableId) }));
  // Another table's list in the same page instance (the sidebar's links): its own prefs.
  const prefs = useMemo(() => (state.tableId === tableId ? state.prefs : read(tableId)), [state, tableId]);
  const change = useCallback(
    (next: (prefs: ColumnPrefs) => ColumnPrefs) =>
      setState((current) => {
        const updated = next(current.tableId === tableId ? current.prefs : read(tableId));
        const empty = updated.hidden.length === 0 && Object.keys(updated.widths).length === 0;
        if (empty) localStorage.removeItem(storageKey(tableId));
        else localStorage.setItem(storageKey(tableId), JSON.stringify(updated));
        return { tableId, prefs: updated };
      }),
    [tableId],
  );
  const setShown = useCallback(
    (id: string, shown: boolean) => change((p) => ({ ...p, hidden: shown ? p.hidden.filter((h) => h !== id) : [...new Set([...p.hidden, id])] })),
    [change],
  );
  const setWidth = useCallback(
    (id: string, px: number | null) =>
      change((p) => {
        const widths = { ...p.widths };
        if (px === null) delete widths[id];
        else widths[id] = clampWidth(px);
        return { ...p, widths };
      }),
    [change],
  );
  const reset = useCallback(() => change(() => EMPTY), [change]);
  return { prefs, setShown, setWidth, reset };
}
