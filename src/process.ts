import type { Logger } from './shared/logger.js';
import { ConfigError } from './config/config.js';

/** Runs an entry point; a start-up failure prints one clear line and exits 1. */
export async function runMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : `Start-up failed: ${(error as Error)?.message ?? String(error)}`;
    process.stderr.write(`${message}\n`);
    if (!(error instanceof ConfigError) && process.env.LOG_LEVEL === 'debug') console.error(error);
    process.exit(1);
  }
}

/** On SIGINT/SIGTERM, runs `stop` once and exits; a second signal exits at once. */
export function onShutdownSignal(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export function printBanner(logger: Logger, url: string): void {
  logger.info({ url }, `Tabula API on ${url}  (REST ${url}/v1, docs ${url}/docs, tRPC ${url}/trpc)`);
}
