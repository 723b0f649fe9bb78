import type { Job } from 'pg-boss';
import type { Orm } from '../../src/db/orm.js';
import type { PurgeJob } from '../../src/jobs/queues.js';
import { purgeDeleted } from '../../src/modules/purge/purge.service.js';
import type { Logger } from '../../src/shared/logger.js';
import type { Storage } from '../../src/storage/storage.js';

/**
 * Hard-deletes what soft deletes made unreachable, one job at a time; the work itself
 * (idempotent, resumable) is `purgeDeleted`; `storage` removes purged projects' file bytes.
 */
export function createPurgeHandler(orm: Orm, logger: Logger, storage: Pick<Storage, 'removeProject' | 'of'>) {
  return async (jobs: Job<PurgeJob>[]): Promise<void> => {
    for (const job of jobs) {
      const { kind, id } = job.data;
      if (await purgeDeleted(orm.em, kind, id, storage)) logger.info({ kind, id }, 'purged');
    }
  };
}
