import type { Column } from './values.js';

/*
 * The reference picker's search by what names a row (docs/console.md#row-labels): the
 * referenced table's `settings.display` (one column name, or a template of `{{column}}`
 * placeholders). The typed text is looked for in each of the display's columns, any of them
 * (`op=or`): as a part of a text-like value, as the whole value of a select or a number; a typed
 * id or slug finds its row too.
 */

const TEXT_LIKE = new Set(['text', 'longtext', 'email', 'url', 'slug']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The columns a display names, in its order (unknown names left out). */
export function displayColumns<C extends Column>(display: string | undefined, columns: C[]): C[] {
  if (!display || display.trim() === '') return [];
  const names = display.includes('{{') ? [...display.matchAll(/\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g)].map((m) => m[1]) : [display.trim()];
  return [...new Set(names)].flatMap((name) => columns.filter((c) => c.name === name));
}

interface Condition {
  i: string;
  w: string;
  v: string;
  l?: string;
}

/** The `filter` (to combine with `op=or`) finding `typed` in the display's columns; null when typed is empty. */
export function displayFilter(typed: string, shown: Column[], locale: string): string | null {
  const text = typed.trim();
  if (text === '') return null;
  const conditions: Condition[] = [];
  for (const column of shown) {
    const l = column.settings.localized === true ? { l: locale } : {};
    if (TEXT_LIKE.has(column.type)) conditions.push({ i: column.name, w: 'contains', v: text, ...l });
    else if (column.type === 'select') conditions.push({ i: column.name, w: 'eq', v: text });
    else if ((column.type === 'integer' && /^-?\d+$/.test(text)) || (column.type === 'number' && Number.isFinite(Number(text)))) conditions.push({ i: column.name, w: 'eq', v: text });
  }
  conditions.push({ i: 'slug', w: 'contains', v: text });
  if (UUID.test(text)) conditions.push({ i: 'id', w: 'eq', v: text.toLowerCase() });
  return JSON.stringify(conditions.slice(0, 20));
}
