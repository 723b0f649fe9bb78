import { loadConfig } from '../src/config/config.js';
import { createLogger, logFormat } from '../src/shared/logger.js';
import { onShutdownSignal, runMain } from '../src/process.js';
import { startWorkers, WORKER_NAMES } from './workers.js';

/**
 * `npm run start:worker [-- --only purge,...]`: runs the job handlers against DATABASE_URL.
 * `WORKERS=purge,...` selects a subset too.
 */
await runMain(async () => {
  const config = loadConfig();
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required for start:worker (npm start runs an embedded database)');
  const logger = createLogger(config.LOG_LEVEL, 'tabula-worker', { format: logFormat(config) });
  const onlyArg = process.argv.indexOf('--only');
  const only = (onlyArg >= 0 ? process.argv[onlyArg + 1] : process.env.WORKERS)?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only?.filter((name) => !WORKER_NAMES.includes(name));
  if (unknown?.length) throw new Error(`Unknown worker(s): ${unknown.join(', ')} (known: ${WORKER_NAMES.join(', ')})`);
  const workers = await startWorkers(config, config.DATABASE_URL, logger, only);
  logger.info({ workers: workers.names }, 'workers started');
  onShutdownSignal(logger, () => workers.stop());
});
