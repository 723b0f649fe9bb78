import { MikroORM, type Options } from '@mikro-orm/postgresql';

export type Orm = MikroORM;

/**
 * Connects the ORM with `config` (mikro-orm.config.ts's createOrmConfig: the entities and
 * migrations are the caller's, so this layer knows no module) and applies every pending
 * migration unless told not to.
 */
export async function openOrm(config: Options, options: { migrate?: boolean } = {}): Promise<Orm> {
  const orm = await MikroORM.init(config);
  if (options.migrate !== false) await orm.migrator.up();
  return orm;
}
