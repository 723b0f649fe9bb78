import type { PgBoss } from 'pg-boss';
import type { Config } from '../src/config/config.js';
import { openMigratedOrm } from '../src/db/migrate.js';
import { startBoss } from '../src/jobs/boss.js';
import { QUEUES } from '../src/jobs/queues.js';
import type { Logger } from '../src/shared/logger.js';
import { createPurgeHandler } from './handlers/purge.js';
import type { Orm } from '../src/db/orm.js';

interface WorkerDefinition {
  queue: string;
  start(boss: PgBoss, orm: Orm, logger: Logger, config: Config): Promise<unknown>;
}

/** One handler per queue; each owns its state and talks to the rest through jobs and the database. */
const WORKERS: Record<string, WorkerDefinition> = {
  purge: {
    queue: QUEUES.purge.name,
    start: (boss, orm, logger, config) =>
      boss.work(
        QUEUES.purge.name,
        { batchSize: 1, pollingIntervalSeconds: 1 },
        createPurgeHandler(orm, logger.child({ worker: 'purge' }), config.STORAGE_DIR),
      ),
  },
};

export const WORKER_NAMES = Object.keys(WORKERS);

export interface RunningWorkers {
  names: string[];
  stop(): Promise<void>;
}

export async function startWorkers(config: Config, databaseUrl: string, logger: Logger, only?: string[]): Promise<RunningWorkers> {
  const orm = await openMigratedOrm(databaseUrl, { poolMax: 5 });
  const boss = await startBoss(databaseUrl, logger, 'worker');
  const names = only?.length ? only : WORKER_NAMES;
  for (const name of names) await WORKERS[name].start(boss, orm, logger, config);
  return {
    names,
    // Graceful: in-flight jobs finish (or, past the timeout, are released back to the queue).
    stop: async () => {
      await boss.stop({ graceful: true, timeout: 20_000 });
      await orm.close(true);
    },
  };
}
