import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config/config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { createLogger, logFormat } from './shared/logger.js';
import { onShutdownSignal, printBanner, runMain } from './process.js';
import { startApi } from './server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** True under tsx (`npm start`); false when this is the compiled dist/src/main.js. */
const fromSources = import.meta.url.endsWith('.ts');
/** The folder of package.json, where npm runs us: the worker runs there too (tsx resolves from it). */
const packageRoot = path.resolve(here, fromSources ? '..' : '../..');

/**
 * `npm start`: the whole system on one machine. Without DATABASE_URL an embedded PostgreSQL
 * runs in ./.data/pg; the API runs in this process and the workers in a child process.
 */
await runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'tabula', { format: logFormat(config) });
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const dataDir = path.resolve(config.DATA_DIR, 'pg');
    logger.info({ dataDir }, 'no DATABASE_URL: starting the embedded PostgreSQL');
    embedded = await startEmbeddedPostgres({ dataDir, log: (line) => logger.debug({ postgres: line }) });
    databaseUrl = embedded.url;
  }
  const api = await startApi(config, databaseUrl, logger);
  const worker = spawnWorker(databaseUrl, logger);
  printBanner(logger, api);

  // In order: no new requests and the in-flight ones answered, the worker's jobs finished, and
  // only then the database they all use (it runs in its own process group, see embedded.ts).
  onShutdownSignal(logger, async () => {
    await api.close();
    await stopChild(worker);
    await embedded?.stop();
  });
});

function spawnWorker(databaseUrl: string, logger: ReturnType<typeof createLogger>): ChildProcess {
  // One process (node itself, with tsx's loader when we run the sources), not the tsx launcher and
  // a node under it: a signal to it reaches the worker itself. The worker runs in the same form as
  // this file: its TypeScript source, or its compiled JS beside us in dist/.
  const entry = fromSources ? ['--import', 'tsx', path.join(here, '..', 'workers', 'main.ts')] : [path.join(here, '..', 'workers', 'main.js')];
  const child = spawn(process.execPath, entry, {
    cwd: packageRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit'],
    // Its own process group: a Ctrl-C reaches it through us, in order.
    detached: true,
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) logger.error({ code }, 'worker process exited');
  });
  // A forced exit (a second Ctrl-C) leaves no worker behind.
  process.on('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

function stopChild(child: ChildProcess, timeoutMs = 25_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
