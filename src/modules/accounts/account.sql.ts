import type { SqlQuery } from '../../db/sql.js';

/** The advisory lock key of the first-account bootstrap (an arbitrary constant of this product). */
const BOOTSTRAP_LOCK = 7261001;

/** Held until the transaction ends: one start-up bootstraps at a time. */
export const lockBootstrap = (): SqlQuery => ({
  text: `select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`,
  values: [],
});
