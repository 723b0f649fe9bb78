/** The contents list query engine: parse (validate against the table) → compile (SQL) → rows. */
export { parseListQuery, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './parse.js';
export { compileListQuery, orderByClause, type ListScope } from './compile.js';
export { encodeCursor, decodeCursor, queryFingerprint, type CursorRow } from './cursor.js';
export { pageOf, toListItem, type ListRow } from './rows.js';
export {
  columnExpression,
  columnSortExpression,
  columnUniqueExpression,
  columnIndexExpressions,
  isSortableColumn,
  literal,
} from './expressions.js';
export { OPERATORS_BY_KIND, MAX_FILTERS } from './parse-filter.js';
export { MAX_SORT_KEYS } from './parse-sort.js';
export { searchDocument, searchIndexLocales } from './search.js';
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
} from './types.js';
