import type { ErrorDetail } from '../../../errors/app-error.js';
import { isLocalized, isMultiple, type ColumnDef, type TableDef } from '../../tables/table-def.js';
import { csvRecords, CsvError } from './csv.js';

/** One line of an import (docs/import-export.md#import): what it asks for, or what is wrong with it. */
export interface ImportLine {
  line: number;
  /** A row id given by the line (the row's id on create; what upsert matches first). */
  id?: string;
  data: Record<string, unknown>;
  status?: string;
  publishAt?: string;
  /** Problems found reading the line; such a line writes nothing. */
  problems: ErrorDetail[];
}

const at = (line: number, field: string, message: string): ErrorDetail => ({ field: `line ${line}${field ? `: ${field}` : ''}`, message });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text lines of a UTF-8 stream, numbered from 1; a final line without a newline counts. */
async function* textLines(chunks: AsyncIterable<string>): AsyncGenerator<{ line: number; text: string }> {
  let rest = '';
  let line = 0;
  for await (const chunk of chunks) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const text of parts) yield { line: ++line, text: text.endsWith('\r') ? text.slice(0, -1) : text };
  }
  if (rest !== '') yield { line: ++line, text: rest };
}

/** `application/x-ndjson`: one `{ "data": {…}, "status"?, "publishAt"?, "id"? }` object a line; blank lines are skipped. */
export async function* ndjsonLines(chunks: AsyncIterable<string>): AsyncGenerator<ImportLine> {
  for await (const { line, text } of textLines(chunks)) {
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      yield { line, data: {}, problems: [at(line, '', 'not a JSON object')] };
      continue;
    }
    if (!isObject(parsed) || !isObject(parsed.data)) {
      yield { line, data: {}, problems: [at(line, 'data', 'each line is an object with a "data" object')] };
      continue;
    }
    const problems: ErrorDetail[] = [];
    const unknown = Object.keys(parsed).filter((key) => !['data', 'status', 'publishAt', 'id'].includes(key));
    for (const key of unknown) problems.push(at(line, key, 'unknown field (a line holds data, status, publishAt and id)'));
    for (const key of ['status', 'publishAt', 'id'] as const) {
      if (parsed[key] !== undefined && typeof parsed[key] !== 'string') problems.push(at(line, key, 'must be a string'));
    }
    yield { line, data: parsed.data, ...strings(parsed), problems };
  }
}

const strings = (o: Record<string, unknown>) => ({
  ...(typeof o.id === 'string' ? { id: o.id } : {}),
  ...(typeof o.status === 'string' ? { status: o.status } : {}),
  ...(typeof o.publishAt === 'string' ? { publishAt: o.publishAt } : {}),
});

/** Where a CSV header sends its cells: a system field, or a column (in a locale). */
type Target = { system: 'id' | 'status' | 'publishAt' } | { column: ColumnDef; locale: string | null };

/** What a target writes: a system field, or a column in one locale (a plain localized header is the default locale's). */
const targetKey = (target: Target, defaultLocale: string) =>
  'system' in target ? target.system : `${target.column.id}.${isLocalized(target.column) ? (target.locale ?? defaultLocale) : ''}`;

function headerTargets(header: string[], table: TableDef, project: { locales: string[]; defaultLocale: string }): { targets: Target[]; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  const targets = header.map((raw, i): Target => {
    const name = raw.trim();
    const where = `column ${i + 1} "${name.slice(0, 100)}"`;
    const target = headerTarget(name, table, project.locales);
    if (!target) {
      problems.push(at(1, where, 'unknown column (a localized column takes one header per locale: title.fr)'));
      return { system: 'id' };
    }
    // Two headers for one cell of the row: the last one would silently win.
    const key = targetKey(target, project.defaultLocale);
    const first = seen.get(key);
    if (first !== undefined) problems.push(at(1, where, `names the same column as column ${first}`));
    else seen.set(key, i + 1);
    return target;
  });
  return { targets, problems };
}

function headerTarget(name: string, table: TableDef, locales: string[]): Target | null {
  if (name === 'id' || name === 'status' || name === 'publishAt') return { system: name };
  const plain = name.startsWith('data.') ? name.slice(5) : name;
  const column = table.columns.find((c) => c.name === plain);
  if (column) return { column, locale: null };
  const dot = plain.lastIndexOf('.');
  const localized = dot > 0 ? table.columns.find((c) => c.name === plain.slice(0, dot)) : undefined;
  if (localized && isLocalized(localized) && locales.includes(plain.slice(dot + 1))) return { column: localized, locale: plain.slice(dot + 1) };
  return null;
}

/**
 * A CSV cell as the value of its column: numbers, booleans, JSON and arrays (multiple columns)
 * are read from their text; anything unreadable is left as text for validation to refuse.
 */
function cellValue(column: ColumnDef, text: string): unknown {
  if (column.type === 'json' || isMultiple(column)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if ((column.type === 'number' || column.type === 'integer') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (column.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * `text/csv`: a header row of column names (`title.fr` for a locale of a localized column;
 * `id`, `status`, `publishAt` for the row's own fields; `data.<name>` for a column named like
 * one of those), then one row a line. An empty cell leaves the column out (its default applies).
 */
export async function* csvLines(chunks: AsyncIterable<string>, table: TableDef, project: { locales: string[]; defaultLocale: string }): AsyncGenerator<ImportLine> {
  let targets: Target[] | null = null;
  try {
    for await (const record of csvRecords(chunks)) {
      if (!targets) {
        const read = headerTargets(record.fields, table, project);
        if (read.problems.length > 0) {
          yield { line: 1, data: {}, problems: read.problems };
          return;
        }
        targets = read.targets;
        continue;
      }
      if (record.fields.length === 1 && record.fields[0] === '') continue; // a blank line
      const { line } = record;
      if (record.fields.length !== targets.length) {
        yield { line, data: {}, problems: [at(line, '', `${record.fields.length} fields where the header has ${targets.length}`)] };
        continue;
      }
      const item: ImportLine = { line, data: {}, problems: [] };
      record.fields.forEach((text, i) => {
        if (text === '') return;
        const target = targets![i];
        if ('system' in target) item[target.system] = text;
        else if (!isLocalized(target.column)) item.data[target.column.name] = cellValue(target.column, text);
        else {
          // `title` is the default locale's value, `title.fr` the French one: one object of locales.
          const byLocale = (item.data[target.column.name] ?? {}) as Record<string, unknown>;
          item.data[target.column.name] = { ...byLocale, [target.locale ?? project.defaultLocale]: cellValue(target.column, text) };
        }
      });
      yield item;
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    yield { line: error.line, data: {}, problems: [at(error.line, '', error.message)] };
  }
}
