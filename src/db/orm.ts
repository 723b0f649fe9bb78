import { MikroORM } from '@mikro-orm/postgresql';
import { createOrmConfig } from '../../mikro-orm.config.js';

export type Orm = MikroORM;

/** Connects the ORM and applies every pending migration (at start-up and in tests). */
export async function openOrm(databaseUrl: string, options: { poolMax?: number; migrate?: boolean } = {}): Promise<Orm> {
  const orm = await MikroORM.init(createOrmConfig(databaseUrl, { poolMax: options.poolMax }));
  if (options.migrate !== false) await orm.migrator.up();
  return orm;
}
