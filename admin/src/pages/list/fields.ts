import type { OperatorsByKind } from 'tabula/client';
import type { Column } from '../../data/columns/queries.js';

/**
 * What the list can sort and filter by: the table's columns and the row's own fields, with the
 * operators each takes. The rules mirror the API's (docs/contents.md#list-queries; the server's
 * src/modules/query/operators.ts is the authority and answers 400 INVALID_QUERY to
 * anything else): only types cross from the server into the console, so the operator table is
 * repeated here, and checked against the server's `OperatorsByKind` when the console compiles.
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
 * Operators the builder offers. `empty`/`present` are the API's `null` with true/false. File
 * columns hold ids, which people do not type: the builder offers them empty/present only; a
 * reference column's row is picked by its name (REFERENCE_OPS).
 */
export type BuilderOp = 'eq' | 'neq' | 'contains' | 'ncontains' | 'startsWith' | 'endsWith' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'in' | 'nin' | 'empty' | 'present';

type ApiOperator = OperatorsByKind[keyof OperatorsByKind];
/** The API's name of a builder operator. */
type ApiName<Op extends BuilderOp> = Op extends 'empty' | 'present' ? 'null' : Op;

const EXACT = ['eq', 'neq', 'in', 'nin', 'empty', 'present'] as const;
const ORDERED = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'empty', 'present'] as const;

/** Each kind's operators, in the order the builder lists them. */
const OFFERED = {
  text: ['contains', 'ncontains', 'eq', 'neq', 'startsWith', 'endsWith', 'in', 'nin', 'empty', 'present'],
  option: EXACT,
  number: ORDERED,
  date: ORDERED,
  datetime: ORDERED,
  boolean: ['eq', 'empty', 'present'],
  status: ['eq', 'neq', 'in', 'nin'],
  uuid: ['empty', 'present'],
  json: ['empty', 'present'],
} as const satisfies Record<Kind, readonly BuilderOp[]>;

/** The API's operators the builder leaves out on purpose. */
const LEFT_OUT = {
  // Yes or no: "is" and empty/present say it all.
  boolean: ['neq', 'in', 'nin'],
  // Every row has a status.
  status: ['null'],
  // Ids, which people do not type.
  uuid: ['eq', 'neq', 'in', 'nin'],
} as const satisfies Partial<Record<Kind, readonly ApiOperator[]>>;

/** The console's kind for each of the API's kinds of value: integers show as numbers, the row's timestamps as datetimes. */
interface KindOfApiKind {
  text: 'text';
  option: 'option';
  number: 'number';
  integer: 'number';
  date: 'date';
  datetime: 'datetime';
  timestamp: 'datetime';
  boolean: 'boolean';
  uuid: 'uuid';
  status: 'status';
  json: 'json';
}
type Covered<K extends Kind> = ApiName<(typeof OFFERED)[K][number]> | (K extends keyof typeof LEFT_OUT ? (typeof LEFT_OUT)[K][number] : never);
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The API's kinds whose operators the tables above do not cover exactly (offered or left out). */
type Mismatched = { [A in keyof OperatorsByKind]: Same<Covered<KindOfApiKind[A]>, OperatorsByKind[A]> extends true ? never : A }[keyof OperatorsByKind];
// Fails to compile, naming the kind, when the server adds or removes an operator (or a kind).
const operatorsMatchApi: [Mismatched] extends [never] ? true : Mismatched = true;
void operatorsMatchApi;

/**
 * A reference column's rows are picked by name (the editor's reference picker), never typed as
 * ids: it takes "is" and "is not" a row beside empty/present (on a multiple column: includes).
 */
const REFERENCE_OPS = ['eq', 'neq', 'empty', 'present'] as const satisfies readonly BuilderOp[];

export const isReferenceField = (field: ListField): boolean => field.column?.type === 'reference' && typeof field.column.settings.table === 'string';

export const operatorsFor = (field: ListField): readonly BuilderOp[] => (isReferenceField(field) ? REFERENCE_OPS : OFFERED[field.kind]);

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
