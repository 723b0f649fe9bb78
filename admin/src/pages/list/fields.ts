import type { Column } from '../../schema.js';

/**
 * What the list can sort and filter by: the table's columns and the row's own fields, with the
 * operators each takes. The rules mirror the API's (SPEC §7 and §12; the server's
 * src/modules/contents/query/parse-filter.ts is the authority and answers 400 INVALID_QUERY to
 * anything else): only types cross from the server into the console, so the table is repeated here.
 */
export type Kind = 'text' | 'option' | 'number' | 'date' | 'datetime' | 'boolean' | 'status' | 'uuid' | 'json';

export interface ListField {
  /** The name the API takes in `i` (a column name, or a system field). */
  id: string;
  label: string;
  kind: Kind;
  /** Select options, or the statuses. */
  options?: readonly string[];
  /** Multiple select, reference and file columns hold arrays (not sortable). */
  multiple: boolean;
  column?: Column;
}

export const STATUSES = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'] as const;

const TEXT_TYPES = new Set(['text', 'longtext', 'email', 'url', 'slug']);

function kindOf(column: Column): Kind {
  if (TEXT_TYPES.has(column.type)) return 'text';
  switch (column.type) {
    case 'select':
      return 'option';
    case 'reference':
    case 'file':
      return 'uuid';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
    case 'date':
    case 'datetime':
    case 'json':
      return column.type;
    default:
      return 'json';
  }
}

export const columnField = (column: Column): ListField => ({
  id: column.name,
  label: column.label || column.name,
  kind: kindOf(column),
  options: column.type === 'select' ? (column.settings.options as string[] | undefined) : undefined,
  multiple: column.settings.multiple === true,
  column,
});

/** The row's own fields the list shows and filters by. */
export const SYSTEM_FIELDS: ListField[] = [
  { id: 'status', label: 'Status', kind: 'status', options: STATUSES, multiple: false },
  { id: 'updatedAt', label: 'Updated', kind: 'datetime', multiple: false },
  { id: 'createdAt', label: 'Created', kind: 'datetime', multiple: false },
  { id: 'publishedAt', label: 'Published', kind: 'datetime', multiple: false },
];

/** Sort keys: single values only (the API refuses json and multiple columns; ids order nothing a person reads). */
export const isSortable = (field: ListField): boolean => !field.multiple && field.kind !== 'json' && field.kind !== 'uuid';

/**
 * Operators the builder offers. `empty`/`present` are the API's `null` with true/false. Reference
 * and file columns hold ids, which people do not type: the builder offers them empty/present only.
 */
export type BuilderOp = 'eq' | 'neq' | 'contains' | 'ncontains' | 'startsWith' | 'endsWith' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'in' | 'nin' | 'empty' | 'present';

const EXACT: BuilderOp[] = ['eq', 'neq', 'in', 'nin', 'empty', 'present'];
const ORDERED: BuilderOp[] = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'empty', 'present'];

export function operatorsFor(field: ListField): BuilderOp[] {
  switch (field.kind) {
    case 'text':
      return ['contains', 'ncontains', 'eq', 'neq', 'startsWith', 'endsWith', 'in', 'nin', 'empty', 'present'];
    case 'number':
    case 'date':
    case 'datetime':
      return ORDERED;
    case 'boolean':
      return ['eq', 'empty', 'present'];
    case 'status':
      return ['eq', 'neq', 'in', 'nin'];
    case 'uuid':
    case 'json':
      return ['empty', 'present'];
    default:
      return EXACT;
  }
}

const TIME_WORDS: Partial<Record<BuilderOp, string>> = { gt: 'after', gte: 'on or after', lt: 'before', lte: 'on or before' };

export function operatorLabel(op: BuilderOp, field: ListField): string {
  const timely = field.kind === 'date' || field.kind === 'datetime';
  if (timely && TIME_WORDS[op]) return TIME_WORDS[op]!;
  const holds = field.multiple;
  switch (op) {
    case 'eq':
      return holds ? 'includes' : 'is';
    case 'neq':
      return 'is not';
    case 'contains':
      return 'contains';
    case 'ncontains':
      return 'does not contain';
    case 'startsWith':
      return 'starts with';
    case 'endsWith':
      return 'ends with';
    case 'gt':
      return 'greater than';
    case 'gte':
      return 'at least';
    case 'lt':
      return 'less than';
    case 'lte':
      return 'at most';
    case 'between':
      return 'between';
    case 'in':
      return holds ? 'includes any of' : 'is any of';
    case 'nin':
      return holds ? 'includes none of' : 'is none of';
    case 'empty':
      return 'is empty';
    case 'present':
      return 'has a value';
  }
}

/** Whether the operator takes a value from the person (empty/present do not). */
export const takesValue = (op: BuilderOp): boolean => op !== 'empty' && op !== 'present';
/** Operators whose value is a list ("a, b, c"). */
export const takesList = (op: BuilderOp): boolean => op === 'in' || op === 'nin';
