import type { ContentsFormat } from 'tabula/client';
import { parseCsv, writeCsv } from './csv.js';

/**
 * The header of an import file mapped to the table's columns: each name in the file goes to a
 * column (or a CSV locale column, `title.fr`, or a row field: id, status, publishAt), or is left
 * out. Names that already name a target go there by default.
 */
export const SKIP = '';

export interface Target {
  id: string;
  label: string;
}

interface ColumnLike {
  name: string;
  label: string;
  settings: Record<string, unknown>;
}

/** The row's own fields, as the import takes them (docs/import-export.md). */
const ROW_FIELDS = ['id', 'status', 'publishAt'];

export function targetsOf(format: ContentsFormat, columns: ColumnLike[], locales: string[]): Target[] {
  const targets: Target[] = [];
  for (const column of columns) {
    targets.push({ id: column.name, label: `${column.label} (${column.name})` });
    if (format === 'csv' && column.settings.localized === true) {
      for (const locale of locales) targets.push({ id: `${column.name}.${locale}`, label: `${column.label}, ${locale} (${column.name}.${locale})` });
    }
  }
  // In NDJSON the row's fields sit beside `data`: only the columns are mapped there.
  if (format === 'csv') for (const field of ROW_FIELDS) targets.push({ id: field, label: `Row ${field}` });
  return targets;
}

/** The format a file name says, or null. */
export function formatOf(name: string): ContentsFormat | null {
  if (/\.csv$/i.test(name)) return 'csv';
  if (/\.(ndjson|jsonl)$/i.test(name)) return 'ndjson';
  return null;
}

/** How many NDJSON lines are read to gather the names used in `data`. */
const NDJSON_SAMPLE = 1000;

const dataOf = (line: string): Record<string, unknown> | null => {
  try {
    const parsed: unknown = JSON.parse(line);
    const data = (parsed as { data?: unknown } | null)?.data;
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** The names in the file's header (CSV) or in its lines' `data` (NDJSON, the first thousand). */
export function headerOf(format: ContentsFormat, text: string): string[] {
  if (format === 'csv') return parseCsv(text.slice(0, text.search(/\r?\n/) === -1 ? undefined : text.search(/\r?\n/)))[0] ?? [];
  const names = new Set<string>();
  for (const line of text.split('\n').slice(0, NDJSON_SAMPLE)) for (const name of Object.keys(dataOf(line) ?? {})) names.add(name);
  return [...names];
}

export function defaultMapping(header: string[], targets: Target[]): Record<string, string> {
  const known = new Set(targets.map((t) => t.id));
  return Object.fromEntries(header.map((name) => [name, known.has(name) ? name : SKIP]));
}

/**
 * The file with its header mapped: CSV cells of skipped names are left out, NDJSON `data` keys
 * renamed or dropped. Lines and records stay where they are (a line that is not JSON is sent as
 * it is, for the API to name).
 */
export function applyMapping(format: ContentsFormat, text: string, mapping: Record<string, string>): string {
  if (format === 'csv') {
    const [header = [], ...rows] = parseCsv(text);
    const kept = header.map((name, index) => ({ index, to: mapping[name] ?? SKIP })).filter((c) => c.to !== SKIP);
    return writeCsv([kept.map((c) => c.to), ...rows.map((row) => kept.map((c) => row[c.index] ?? ''))]);
  }
  return text
    .split('\n')
    .map((line) => {
      const data = dataOf(line);
      if (!data) return line;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const mapped: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(data)) {
        const to = mapping[name] ?? name;
        if (to !== SKIP) mapped[to] = value;
      }
      return JSON.stringify({ ...parsed, data: mapped });
    })
    .join('\n');
}

/** A 422's detail field (`line 3: data.price`, `line 1: column 3 "code"`) as its line and the rest. */
export function lineOf(field: string): { line: number | null; field: string } {
  const match = /^line (\d+)(?::\s*(.*))?$/.exec(field);
  return match ? { line: Number(match[1]), field: match[2] ?? '' } : { line: null, field };
}
