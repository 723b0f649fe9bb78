import type { Column } from '../../data/columns/queries.js';

export type ColumnType = Column['type'];
export type OnDelete = 'setNull' | 'restrict' | 'cascade';

/** A setting the form shows, besides required, unique and defaultValue (which every type takes). */
export type Setting = 'minText' | 'maxText' | 'pattern' | 'localized' | 'min' | 'max' | 'options' | 'multiple' | 'source' | 'table' | 'onDelete';

/**
 * docs/contents.md#tables-and-columns, as the API checks it (src/modules/columns/column.settings.ts): the settings each type
 * takes. A Record over the type union, so that a type the API gains fails the type check here.
 */
export const COLUMN_TYPES: Record<ColumnType, { label: string; settings: Setting[] }> = {
  text: { label: 'Text', settings: ['minText', 'maxText', 'pattern', 'localized'] },
  longtext: { label: 'Long text', settings: ['minText', 'maxText', 'localized'] },
  number: { label: 'Number', settings: ['min', 'max'] },
  integer: { label: 'Integer', settings: ['min', 'max'] },
  boolean: { label: 'Boolean', settings: [] },
  date: { label: 'Date', settings: [] },
  datetime: { label: 'Date and time', settings: [] },
  email: { label: 'E-mail', settings: [] },
  url: { label: 'URL', settings: ['localized'] },
  select: { label: 'Select', settings: ['options', 'multiple'] },
  json: { label: 'JSON', settings: [] },
  slug: { label: 'Slug', settings: ['source'] },
  reference: { label: 'Reference', settings: ['table', 'multiple', 'onDelete'] },
  file: { label: 'File', settings: ['multiple'] },
};

export const TYPE_OPTIONS = Object.entries(COLUMN_TYPES).map(([id, { label }]) => ({ id, label }));

export const ON_DELETE_OPTIONS: { id: OnDelete; label: string }[] = [
  { id: 'setNull', label: 'Clear the reference' },
  { id: 'restrict', label: 'Refuse the delete' },
  { id: 'cascade', label: 'Delete the referencing rows too' },
];

/** The column form's state: every input as typed, turned into settings by `toSettings`. */
export interface ColumnDraft {
  name: string;
  label: string;
  type: ColumnType;
  required: boolean;
  unique: boolean;
  defaultValue: string;
  minText: string;
  maxText: string;
  pattern: string;
  localized: boolean;
  min: string;
  max: string;
  /** One option a line: an option may hold a comma. */
  options: string;
  multiple: boolean;
  source: string;
  table: string;
  onDelete: OnDelete;
}

export const NEW_COLUMN: ColumnDraft = {
  name: '',
  label: '',
  type: 'text',
  required: false,
  unique: false,
  defaultValue: '',
  minText: '',
  maxText: '',
  pattern: '',
  localized: false,
  min: '',
  max: '',
  options: '',
  multiple: false,
  source: '',
  table: '',
  onDelete: 'setNull',
};

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/** Lists (multiple select, reference or file values) are typed comma- or line-separated. */
const isList = (draft: Pick<ColumnDraft, 'type' | 'multiple'>) => draft.multiple && ['select', 'reference', 'file'].includes(draft.type);

function defaultText(column: Column): string {
  const value = column.settings.defaultValue;
  if (value === undefined || value === null) return '';
  if (column.type === 'json') return JSON.stringify(value, null, 2);
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

export function draftOf(column: Column): ColumnDraft {
  const s = column.settings;
  return {
    name: column.name,
    label: column.label,
    type: column.type,
    required: s.required === true,
    unique: s.unique === true,
    defaultValue: defaultText(column),
    minText: text(s.minText),
    maxText: text(s.maxText),
    pattern: text(s.pattern),
    localized: s.localized === true,
    min: text(s.min),
    max: text(s.max),
    options: Array.isArray(s.options) ? s.options.join('\n') : '',
    multiple: s.multiple === true,
    source: text(s.source),
    table: text(s.table),
    onDelete: (s.onDelete as OnDelete | undefined) ?? 'setNull',
  };
}

/** Whether `unique` applies: the API refuses it on json and multiple columns. */
export const uniqueApplies = (draft: Pick<ColumnDraft, 'type' | 'multiple'>) => draft.type !== 'json' && !isList(draft);

/**
 * A number as typed; what is not a number is sent as typed, so that the API's answer (400 or 422
 * naming the setting) stands at the field.
 */
function numeric(raw: string): number | string {
  const value = Number(raw.trim());
  return raw.trim() !== '' && Number.isFinite(value) ? value : raw;
}

/** The default value in the column type's JSON shape; a JSON default that does not parse is the form's own error. */
function parseDefault(draft: ColumnDraft): { value?: unknown; error?: string } {
  const raw = draft.defaultValue;
  if (raw.trim() === '') return {};
  if (draft.type === 'json') {
    try {
      return { value: JSON.parse(raw) };
    } catch {
      return { error: 'is not valid JSON' };
    }
  }
  if (draft.type === 'boolean') return { value: raw === 'true' ? true : raw === 'false' ? false : raw };
  if (draft.type === 'number' || draft.type === 'integer') return { value: numeric(raw) };
  if (isList(draft)) return { value: raw.split(/[,\n]/).map((v) => v.trim()).filter(Boolean) };
  return { value: raw };
}

/** The settings the draft describes, for its type only (the API refuses settings that do not apply). */
export function toSettings(draft: ColumnDraft): { settings: Record<string, unknown>; errors: Record<string, string> } {
  const settings: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  if (draft.required) settings.required = true;
  if (draft.unique && uniqueApplies(draft)) settings.unique = true;
  const fallback = parseDefault(draft);
  if (fallback.error) errors['settings.defaultValue'] = fallback.error;
  else if (fallback.value !== undefined) settings.defaultValue = fallback.value;
  for (const setting of COLUMN_TYPES[draft.type].settings) {
    switch (setting) {
      case 'minText':
      case 'maxText':
      case 'min':
      case 'max':
        if (draft[setting].trim() !== '') settings[setting] = numeric(draft[setting]);
        break;
      case 'pattern':
      case 'source':
        if (draft[setting] !== '') settings[setting] = draft[setting];
        break;
      case 'localized':
      case 'multiple':
        if (draft[setting]) settings[setting] = true;
        break;
      case 'options': {
        const options = draft.options.split('\n').map((o) => o.trim()).filter(Boolean);
        if (options.length > 0) settings.options = options;
        break;
      }
      case 'table':
        // Required by the API for references: left out, its 400 names the field.
        if (draft.table !== '') settings.table = draft.table;
        break;
      case 'onDelete':
        // Absent means setNull (docs/contents.md#references).
        if (draft.onDelete !== 'setNull') settings.onDelete = draft.onDelete;
        break;
    }
  }
  return { settings, errors };
}

/**
 * An update's settings: the API merges them key by key (docs/concepts.md#conventions), so a setting the form no longer
 * holds (unticked, emptied, or one the new type does not take) is sent as null, which removes it.
 */
export function settingsPatch(previous: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const key of Object.keys(previous)) if (!(key in next)) patch[key] = null;
  return patch;
}

/** A short reading of a column's settings for the list: `required`, `3–80 characters`, `→ Authors`. */
export function settingsSummary(column: Column, tableName: (id: string) => string): string[] {
  const s = column.settings;
  const parts: string[] = [];
  if (s.required) parts.push('required');
  if (s.unique) parts.push('unique');
  if (s.localized) parts.push('localized');
  if (s.multiple) parts.push('multiple');
  if (s.minText !== undefined || s.maxText !== undefined) parts.push(`${text(s.minText) || '0'}–${text(s.maxText) || '∞'} characters`);
  if (s.min !== undefined) parts.push(`min ${text(s.min)}`);
  if (s.max !== undefined) parts.push(`max ${text(s.max)}`);
  if (s.pattern !== undefined) parts.push(`pattern ${text(s.pattern)}`);
  if (Array.isArray(s.options)) parts.push(`options: ${s.options.join(', ')}`);
  if (typeof s.table === 'string') parts.push(`→ ${tableName(s.table)}`);
  if (s.onDelete !== undefined) parts.push(`on delete: ${ON_DELETE_OPTIONS.find((o) => o.id === s.onDelete)?.label.toLowerCase() ?? text(s.onDelete)}`);
  if (s.source !== undefined) parts.push(`from ${text(s.source)}`);
  if (s.defaultValue !== undefined) parts.push(`default ${defaultText(column).replace(/\s+/g, ' ')}`);
  return parts;
}
