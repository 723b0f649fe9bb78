import { useColumns, type Column } from '../../data/columns/queries.js';
import { useProject } from '../../data/projects/context.js';
import { useTables } from '../../data/tables/queries.js';

/**
 * A row's values as people read them: a localized value in the project's default locale (or the
 * first locale that has one), references by their label, files by name, booleans in words, dates
 * and numbers in the reader's conventions. Long text is a one-line preview (docs/console.md, "Long
 * values in the list"): at most PREVIEW_CHARS characters, line breaks as spaces, cut with an
 * ellipsis; the cell's CSS ends it with an ellipsis where it is narrower. The editor shows it whole.
 */
export const PREVIEW_CHARS = 80;

type Localized = Record<string, unknown>;

/** A localized column's value for a locale, falling back to the default, then to any locale with one. */
export function inLocale(value: unknown, locale: string, fallback: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const byLocale = value as Localized;
  for (const candidate of [locale, fallback]) if (byLocale[candidate] !== undefined && byLocale[candidate] !== null) return byLocale[candidate];
  return Object.values(byLocale).find((v) => v !== null && v !== undefined) ?? null;
}

/** Only the start of a long text is looked at: a body of several KB costs no more than a word. */
function cut(text: string): string {
  const start = text.slice(0, PREVIEW_CHARS * 2).replace(/\s+/g, ' ').trim();
  return start.length > PREVIEW_CHARS || text.length > PREVIEW_CHARS * 2 ? `${start.slice(0, PREVIEW_CHARS - 1).trimEnd()}…` : start;
}

const numberFormat = new Intl.NumberFormat();
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatInstant = (iso: string): string => dateTimeFormat.format(new Date(iso));

/** The plain text of a value of `column` (localized values already resolved). */
export function textOf(column: Column, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (Array.isArray(value)) return cut(value.map((v) => textOf(column, v)).join(', '));
  switch (column.type) {
    case 'boolean':
      return value ? 'Yes' : 'No';
    case 'number':
    case 'integer':
      return typeof value === 'number' ? numberFormat.format(value) : String(value);
    case 'date':
      return typeof value === 'string' ? dateFormat.format(new Date(`${value}T00:00:00Z`)) : String(value);
    case 'datetime':
      return typeof value === 'string' ? formatInstant(value) : String(value);
    case 'json':
      return cut(JSON.stringify(value));
    case 'file':
      // An id until the page is read with `expand` (useContentsPage.ts).
      return typeof value === 'object' && value !== null && 'name' in value ? String((value as { name: unknown }).name) : '…';
    default:
      return cut(typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
}

/** The column that names a row of a table: its first text-like column (text before slug, email, url). */
export function labelColumnOf(columns: Column[]): Column | undefined {
  for (const type of ['text', 'slug', 'email', 'url', 'longtext']) {
    const found = columns.find((c) => c.type === type);
    if (found) return found;
  }
  return undefined;
}

export interface RowLike {
  id: string;
  slug?: string | null;
  data?: Record<string, unknown>;
}

/** A row's label: its label column's value, else its slug, else the start of its id. */
export function rowLabel(row: RowLike, labelColumn: Column | undefined, locale: string, fallback: string): string {
  const value = labelColumn ? inLocale(row.data?.[labelColumn.name], locale, fallback) : null;
  if (labelColumn && value !== null && value !== undefined && value !== '') return textOf(labelColumn, value);
  return row.slug ?? `Row ${row.id.slice(0, 8)}…`;
}

/**
 * A row labelled by its table's `settings.display` (docs/contents.md#tables-and-columns): a column
 * name, or a template of `{{column}}` placeholders, each replaced by the column's value as the
 * list shows it (a localized value in `locale`). Empty when the display gives nothing, so the
 * caller falls back to rowLabel.
 */
export function displayLabel(display: string, columns: Column[], row: RowLike, locale: string): string {
  const template = display.includes('{{') ? display : `{{${display.trim()}}}`;
  const out = template.replace(/\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g, (_whole, name: string) => {
    const column = columns.find((c) => c.name === name);
    if (!column) return '';
    const value = column.settings.localized ? inLocale(row.data?.[name], locale, locale) : row.data?.[name];
    return value === null || value === undefined ? '' : textOf(column, value);
  });
  return out.trim() === '' || out.replace(/[\s()[\],.:;|/-]/g, '') === '' ? '' : out.trim();
}

/** Expanded references (docs/contents.md#expand): each referenced row by its label; a row no longer there shows nothing. */
function ReferenceValue({ column, value }: { column: Column; value: unknown }) {
  const project = useProject();
  const tableId = typeof column.settings.table === 'string' ? column.settings.table : '';
  const columns = useColumns(project.id, tableId);
  // Every hook before the early return below: a cell first drawn from the page's answer without
  // `expand` draws again, the same instance, from the expanded one, and React needs the same hooks
  // in the same order each time (a hook after the return fails that second render, and the page).
  const display = useTables(project.id).data?.list.find((t) => t.id === tableId)?.settings.display;
  const values = Array.isArray(value) ? value : [value];
  // Ids, not rows: the page's first answer, before the one with `expand` (useContentsPage.ts).
  if (values.some((v) => typeof v === 'string')) return <span className="list-none">…</span>;
  const rows = values.filter((v): v is RowLike => typeof v === 'object' && v !== null && 'id' in v);
  const label = columns.data ? labelColumnOf(columns.data) : undefined;
  const name = (row: RowLike) =>
    (display && columns.data ? displayLabel(display, columns.data, row, project.defaultLocale) : '') || rowLabel(row, label, project.defaultLocale, project.defaultLocale);
  return <span className="list-preview">{cut(rows.map(name).join(', '))}</span>;
}

export function CellValue({ column, value }: { column: Column; value: unknown }) {
  const project = useProject();
  if (column.type === 'reference') return <ReferenceValue column={column} value={value} />;
  const resolved = column.settings.localized ? inLocale(value, project.defaultLocale, project.defaultLocale) : value;
  const text = textOf(column, resolved);
  if (text === '')
    return (
      <>
        <span className="list-none" aria-hidden="true">—</span>
        <span className="visually-hidden">No value</span>
      </>
    );
  if (column.type === 'boolean') return <span className={resolved ? 'list-yes' : 'list-no'}>{text}</span>;
  return <span className="list-preview">{text}</span>;
}

const STATUS_WORDS: Record<string, string> = { DRAFT: 'Draft', SCHEDULED: 'Scheduled', PUBLISHED: 'Published', ARCHIVED: 'Archived' };

export function StatusBadge({ status, hasDraft }: { status?: string; hasDraft?: boolean }) {
  if (!status) return null;
  return (
    <span className="list-status">
      <span className={`badge badge-${status.toLowerCase()}`}>{STATUS_WORDS[status] ?? status}</span>
      {hasDraft && <span className="badge list-pending">Pending changes</span>}
    </span>
  );
}
