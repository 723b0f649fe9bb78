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

/**
 * A signal this soon after the first is the same stop: npm forwards the terminal's Ctrl-C (or a
 * process manager's SIGTERM to the group) to a process that already got it from the kernel.
 */
export const REPEAT_WINDOW_MS = 1_000;

/**
 * On SIGINT/SIGTERM, runs `stop` once and exits 0 (1 if it fails). A second signal later than
 * REPEAT_WINDOW_MS forces the exit at once (a second Ctrl-C).
 */
export function onShutdownSignal(logger: Logger, stop: () => Promise<void>): void {
  let firstAt: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstAt !== undefined) {
      if (Date.now() - firstAt < REPEAT_WINDOW_MS) return;
      logger.warn({ signal }, 'second signal: exiting without waiting for the stop to finish');
      process.exit(1);
    }
    firstAt = Date.now();
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
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
  const urls = { console: `${url}/admin/`, rest: `${url}/v1`, docs: `${url}/docs`, trpc: `${url}/trpc` };
  const access = api.printedAdminToken ? 'admin token: printed above, shown once' : `a token: ${TOKEN_HINT}`;
  logger.info({ url, ...urls }, `Tabula on ${url}  console ${urls.console}  REST ${urls.rest}  docs ${urls.docs}  tRPC ${urls.trpc}  ${access}`);
}
