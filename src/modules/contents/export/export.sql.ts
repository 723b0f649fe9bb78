import type { SqlQuery } from '../../../db/sql.js';

/** An export reads its pages in one snapshot: rows written meanwhile neither appear nor shift pages. */
export const exportStatements: Record<'begin' | 'commit' | 'rollback', SqlQuery> = {
  begin: { text: 'begin isolation level repeatable read read only', values: [] },
  commit: { text: 'commit', values: [] },
  rollback: { text: 'rollback', values: [] },
};
