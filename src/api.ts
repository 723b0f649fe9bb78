import { loadConfig } from './config/config.js';
import { createLogger, logFormat } from './shared/logger.js';
import { startApi } from './server.js';
import { onShutdownSignal, printBanner, runMain } from './process.js';

/** `npm run start:api`: the API alone, against DATABASE_URL (production). */
await runMain(async () => {
  const config = loadConfig();
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required for start:api (npm start runs an embedded database)');
  const logger = createLogger(config.LOG_LEVEL, 'tabula-api', { format: logFormat(config) });
  const api = await startApi(config, config.DATABASE_URL, logger);
  printBanner(logger, api);
  onShutdownSignal(logger, () => api.close());
});
