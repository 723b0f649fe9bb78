/**
 * What changed between two versions of a contents row, column by column, as people read it: the
 * revisions panel renders this. Pure (no React, no client) so that it is unit-tested without a
 * browser; it names only the few column fields it reads, so it depends on no server type.
 */

export interface DiffColumn {
  name: string;
  label: string;
  type: string;
  settings: Record<string, unknown>;
}

/** A version of a row: a revision, or the row as it is now. */
export interface Snapshot {
  status: string;
  data: Record<string, unknown>;
}

export interface Locales {
  locales: string[];
  defaultLocale: string;
}

/** What a reference or file column's ids read as: the referenced row's label, the file's name. */
export type Names = ReadonlyMap<string, string>;

const NO_NAMES: Names = new Map();

/** A run of text: kept on both sides, only in the old value, or only in the new one. */
export interface Segment {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** One value of a column (one locale of a localized column); an empty side is `[]`. */
export interface ValueDiff {
  locale: string | null;
  changed: boolean;
  before: Segment[];
  after: Segment[];
}

export interface ColumnDiff {
  name: string;
  label: string;
  changed: boolean;
  values: ValueDiff[];
}

export interface RowDiff {
  status: { before: string | null; after: string; changed: boolean };
  /** In the table's column order; `changed` first is the renderer's choice. */
  columns: ColumnDiff[];
  changedCount: number;
}

/**
 * The diff from `before` (null: nothing before, as for a row's first version) to `after`.
 * Columns of the data that the table no longer has are listed after the table's own, by name.
 */
export function diffRows(columns: DiffColumn[], before: Snapshot | null, after: Snapshot, locales: Locales, names: Names = NO_NAMES): RowDiff {
  const known = new Set(columns.map((column) => column.name));
  const extra = [...new Set([...Object.keys(before?.data ?? {}), ...Object.keys(after.data)])]
    .filter((name) => !known.has(name))
    .sort()
    .map((name): DiffColumn => ({ name, label: name, type: 'json', settings: {} }));
  const diffs = [...columns, ...extra].map((column) => diffColumn(column, before?.data[column.name], after.data[column.name], locales, names));
  return {
    status: { before: before?.status ?? null, after: after.status, changed: before?.status !== after.status },
    columns: diffs,
    changedCount: diffs.filter((diff) => diff.changed).length,
  };
}

function diffColumn(column: DiffColumn, before: unknown, after: unknown, locales: Locales, names: Names): ColumnDiff {
  if (column.settings.localized !== true) {
    const value = diffValue(column, null, before, after, names);
    return { name: column.name, label: column.label, changed: value.changed, values: [value] };
  }
  const old = byLocale(before, locales.defaultLocale);
  const now = byLocale(after, locales.defaultLocale);
  // The project's locales in its order, then any other key a value carries (a locale removed since).
  const present = new Set([...Object.keys(old), ...Object.keys(now)]);
  const order = [...locales.locales.filter((locale) => present.has(locale)), ...[...present].filter((locale) => !locales.locales.includes(locale)).sort()];
  const values = order.map((locale) => diffValue(column, locale, old[locale], now[locale], names)).filter((value) => value.before.length > 0 || value.after.length > 0);
  return { name: column.name, label: column.label, changed: values.some((value) => value.changed), values };
}

/** A localized value is `{ locale: value }`; a plain value (stored before the column was localized) is the default locale's. */
function byLocale(value: unknown, defaultLocale: string): Record<string, unknown> {
  if (isEmpty(value)) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return { [defaultLocale]: value };
}

function diffValue(column: DiffColumn, locale: string | null, before: unknown, after: unknown, names: Names): ValueDiff {
  // Compared by value (ids), shown by name: two rows of one label are still a change.
  const changed = canonical(before) !== canonical(after);
  const old = formatValue(column, before, names);
  const now = formatValue(column, after, names);
  if (!changed) return { locale, changed, before: old === null ? [] : [{ kind: 'same', text: old }], after: now === null ? [] : [{ kind: 'same', text: now }] };
  if (old === null || now === null) {
    return { locale, changed, before: old === null ? [] : [{ kind: 'removed', text: old }], after: now === null ? [] : [{ kind: 'added', text: now }] };
  }
  return { locale, changed, ...wordDiff(old, now) };
}

/** Empty string, empty list and null all read as "no value" to a person. */
function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** JSON with sorted keys, so that `{a,b}` and `{b,a}` compare equal (json columns keep key order as sent). */
function canonical(value: unknown): string {
  if (isEmpty(value)) return 'null';
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}

/** A value as text, or null when there is none. References and files are named by `names`. */
export function formatValue(column: DiffColumn, value: unknown, names: Names = NO_NAMES): string | null {
  if (isEmpty(value)) return null;
  if (column.type === 'json') return JSON.stringify(value, null, 2);
  if (column.type === 'reference' || column.type === 'file') {
    const named = (Array.isArray(value) ? value : [value]).map((id) => (typeof id === 'string' ? (names.get(id) ?? id) : JSON.stringify(id)));
    return named.join(', ');
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ');
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
}

/**
 * Past this many word pairs a change is shown as the whole old value and the whole new one: the
 * longest-common-subsequence table grows as the product of both lengths.
 */
export const WORD_DIFF_LIMIT = 250_000;

/**
 * A word-level diff: the words both values share stay plain, the others are marked on their side.
 * The common beginning and end are set aside first, so that an edit in a long text costs only
 * the table of the part that differs.
 */
export function wordDiff(before: string, after: string): { before: Segment[]; after: Segment[] } {
  const a = tokens(before);
  const b = tokens(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const midA = a.slice(start, a.length - end);
  const midB = b.slice(start, b.length - end);
  const head = a.slice(0, start).join('');
  const tail = a.slice(a.length - end).join('');
  const [oldMid, newMid] = midA.length * midB.length > WORD_DIFF_LIMIT ? [[{ kind: 'removed', text: midA.join('') }], [{ kind: 'added', text: midB.join('') }]] as Segment[][] : lcsMarks(midA, midB);
  const wrap = (middle: Segment[]) => merge([{ kind: 'same', text: head }, ...middle, { kind: 'same', text: tail }]);
  return { before: wrap(oldMid), after: wrap(newMid) };
}

/** Words and the whitespace between them, kept as tokens of their own so that joining restores the text. */
function tokens(text: string): string[] {
  return text.split(/(\s+)/).filter((token) => token !== '');
}

function lcsMarks(a: string[], b: string[]): [Segment[], Segment[]] {
  const width = b.length + 1;
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j] ? lengths[(i + 1) * width + j + 1] + 1 : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
    }
  }
  const old: Segment[] = [];
  const now: Segment[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      old.push({ kind: 'same', text: a[i++] });
      now.push({ kind: 'same', text: b[j++] });
    } else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) old.push({ kind: 'removed', text: a[i++] });
    else now.push({ kind: 'added', text: b[j++] });
  }
  while (i < a.length) old.push({ kind: 'removed', text: a[i++] });
  while (j < b.length) now.push({ kind: 'added', text: b[j++] });
  return [old, now];
}

/**
 * Neighbouring runs of one kind joined, empty runs dropped; whitespace alone between two marked
 * runs is marked too, so that "old words" reads as one struck phrase, not two.
 */
function merge(segments: Segment[]): Segment[] {
  const runs = segments.filter((segment) => segment.text !== '');
  const out: Segment[] = [];
  runs.forEach((segment, index) => {
    const next = runs[index + 1];
    const last = out.at(-1);
    const kind = segment.kind === 'same' && /^\s+$/.test(segment.text) && last && last.kind !== 'same' && next?.kind === last.kind ? last.kind : segment.kind;
    if (last && last.kind === kind) last.text += segment.text;
    else out.push({ kind, text: segment.text });
  });
  return out;
}
