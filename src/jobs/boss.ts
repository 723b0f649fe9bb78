import { PgBoss } from 'pg-boss';
import type { Logger } from '../shared/logger.js';
import { QUEUES } from './queues.js';

export const BOSS_SCHEMA = 'pgboss';

/**
 * A pg-boss instance on the application's database. The API side only sends jobs, so it runs
 * without supervision or scheduling; workers are other instances on the same schema.
 */
export async function startBoss(
  databaseUrl: string,
  logger: Logger,
  role: 'api' | 'worker',
): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: BOSS_SCHEMA,
    max: role === 'api' ? 4 : 8,
    supervise: role === 'worker',
    schedule: role === 'worker',
    useListenNotify: role === 'worker',
    // How often a worker looks for jobs whose worker died (stale heartbeat, expiry): seconds
    // instead of the default minute.
    monitorIntervalSeconds: 5,
    superviseIntervalSeconds: 5,
  });
  boss.on('error', (error) => logger.error({ err: error }, 'pg-boss error'));
  await boss.start();
  for (const queue of Object.values(QUEUES)) {
    await boss.createQueue(queue.name, { ...queue.options, notify: true });
  }
  return boss;
}
