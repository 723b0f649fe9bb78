import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';

/**
 * Every migration, in order. Listed explicitly (not discovered from the folder) so that the
 * same list runs under tsx, vitest and the CLI.
 */
export const migrations = [{ name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation }];
