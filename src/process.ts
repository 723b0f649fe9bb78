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

/** How an operator gets a token when none was printed at start-up. */
export const TOKEN_HINT = 'npm run cli -- token create --email you@example.com';

/**
 * The one start-up line: where everything is, and how to get in. In JSON logs it is a record
 * with the URLs as fields, so that tooling can read them too.
 */
export function printBanner(logger: Logger, api: { url: string; printedAdminToken: boolean }): void {
  const { url } = api;
  const urls = { rest: `${url}/v1`, docs: `${url}/docs`, trpc: `${url}/trpc` };
  const access = api.printedAdminToken ? 'admin token: printed above, shown once' : `a token: ${TOKEN_HINT}`;
  logger.info({ url, ...urls }, `Tabula on ${url}  REST ${urls.rest}  docs ${urls.docs}  tRPC ${urls.trpc}  ${access}`);
}
