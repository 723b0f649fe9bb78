import type { SqlQuery } from './sql.js';

/** Answers if the database does. */
export const databaseProbe: SqlQuery = { text: 'select 1', values: [] };

/** Answers if pg-boss's schema is installed and readable. */
export const queueProbe: SqlQuery = { text: 'select version from pgboss.version limit 1', values: [] };
