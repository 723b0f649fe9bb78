import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './src/modules/entities.js';
import { migrations } from './src/migrations/index.js';

/**
 * The ORM configuration. The connection string is filled in at run time (the embedded
 * database picks its port when it starts), so this file only holds what never changes.
 */
export function createOrmConfig(clientUrl: string, options: { poolMax?: number; debug?: boolean } = {}) {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    // Entities are defined with defineEntity: no reflection, no folder discovery.
    discovery: { warnWhenNoEntities: true },
    pool: { min: 0, max: options.poolMax ?? 10 },
    debug: options.debug ?? false,
    migrations: {
      migrationsList: migrations,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      snapshotOnMigrate: false,
      silent: true,
    },
  });
}

export default createOrmConfig(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tabula');
