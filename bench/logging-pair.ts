/**
 * Two APIs in one process, one with request logging on and one with it off, for the logging
 * comparison (bench/logging.ts): they share the process's heap, garbage collector and compiled
 * code, so the comparison is not also one between two processes' states. Prints one line of
 * JSON with their URLs when both listen; SIGTERM closes both.
 */
import { loadConfig } from '../src/config/config.js';
import { startApi } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { onShutdownSignal, runMain } from '../src/process.js';

await runMain(async () => {
  const logger = createLogger('warn', 'bench-logging-pair');
  const databaseUrl = process.env.DATABASE_URL!;
  const on = await startApi(loadConfig({ ...process.env, PORT: '0', REQUEST_LOGGING: 'true' }), databaseUrl, logger);
  const off = await startApi(loadConfig({ ...process.env, PORT: '0', REQUEST_LOGGING: 'false' }), databaseUrl, logger);
  process.stdout.write(`${JSON.stringify({ on: on.url, off: off.url })}\n`);
  onShutdownSignal(logger, () => Promise.all([on.close(), off.close()]).then(() => undefined));
});
