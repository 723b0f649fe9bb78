/**
 * The list query engine: parse (validate against the table) → compile (SQL) → rows, and the same
 * query evaluated on one row in JavaScript (evaluate.ts) for the list cache. Other modules import
 * it from here.
 */
export { parseListQuery, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './parse.js';
export { parseFields } from './parse-fields.js';
export { MAX_HOPS } from './parse-common.js';
export { compileListQuery, columnValue, orderByClause, type ListScope } from './compile.js';
export { filtersClause, Params } from './compile-where.js';
export { encodeCursor, decodeCursor, queryFingerprint, type CursorRow } from './cursor.js';
export { pageOf, toListItem, type ListRow } from './rows.js';
export {
  columnExpression,
  columnSortExpression,
  columnUniqueExpression,
  columnIndexExpressions,
  isSortableColumn,
  literal,
  systemColumn,
} from './expressions.js';
export { MAX_FILTERS, parseFilters } from './parse-filter.js';
export { OPERATORS_BY_KIND, type OperatorsByKind } from './operators.js';
export { MAX_SORT_KEYS } from './parse-sort.js';
export { MAX_SEARCH_LENGTH, searchDocument, searchIndexLocales } from './search.js';
export {
  EXPAND_DESCRIPTION,
  FIELDS_DESCRIPTION,
  FILTER_DESCRIPTION,
  FILTER_EXAMPLE,
  OP_DESCRIPTION,
  SEARCH_DESCRIPTION,
  SORT_DESCRIPTION,
  SORT_EXAMPLE,
  tableFilterDescription,
  tableSortDescription,
} from './describe.js';
export { comparePosition, filtersMatch, rowMatches, sortKeysOf, type ListShape, type RowValues, type SortPosition, type TextOrder } from './evaluate.js';
export { OPERATORS } from './types.js';
export type {
  ListQuery,
  RawListParams,
  ProjectLocales,
  Filter,
  SortKey,
  FieldRef,
  Projection,
  CursorPosition,
  SqlQuery,
  SystemField,
  OutputSystemField,
  Operator,
  ParseContext,
  Scalar,
  ValueKind,
} from './types.js';
