import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi } from '../../src/server.js';
import { clientFor, type CallOptions, type CallResult, type TestApi } from '../helpers/api.js';
import { builtArgs } from '../helpers/child.js';
import { until } from '../helpers/until.js';

/** A second API on the same database as `t`: in this node process, or as a real child process. */
export interface SecondApi {
  kind: string;
  url: string;
  call: (method: string, path: string, options?: CallOptions) => Promise<CallResult>;
  close(): Promise<void>;
  /** A child process only: sends `signal` and waits for the process to exit. */
  kill?(signal: NodeJS.Signals): Promise<void>;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sharedEnv(t: TestApi, env: Record<string, string>): Record<string, string> {
  return { ADMIN_EMAIL: t.adminEmail, ADMIN_TOKEN: t.adminToken, LOG_LEVEL: 'silent', ...env };
}

/** A separate server instance (own caches, own rate-limit leases) inside this node process. */
export async function startInProcess(t: TestApi, env: Record<string, string>): Promise<SecondApi> {
  const config = loadConfig({ ...sharedEnv(t, env), PORT: '0', HOST: '127.0.0.1' });
  const api = await startApi(config, t.db.url, createLogger('silent'));
  return { kind: 'in-process server', url: api.url, call: clientFor(api.url, t.adminToken), close: () => api.close(1000) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * The compiled API (`node --max-semi-space-size=8 dist/src/api.js`, as `npm run start:api` runs
 * it; dist/ is built by `pretest`) against the same database: a real second OS process, started
 * without compiling.
 */
export async function startChildProcess(t: TestApi, env: Record<string, string>): Promise<SecondApi> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, builtArgs('src/api.ts'), {
    cwd: ROOT,
    env: { ...process.env, ...sharedEnv(t, env), DATABASE_URL: t.db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + String(chunk)).slice(-4000)));
  child.stderr?.on('data', (chunk) => (output = (output + String(chunk)).slice(-4000)));
  const answers = async () => {
    if (child.exitCode !== null) throw new Error(`second API process exited (${child.exitCode}): ${output}`);
    try {
      return (await fetch(`${url}/healthz`)).ok;
    } catch {
      return false; // not listening yet
    }
  };
  try {
    await until(answers, 30_000, 'the second API process to answer /healthz', 100);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${(error as Error).message}: ${output}`);
  }
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  };
  return { kind: 'child process', url, call: clientFor(url, t.adminToken), close: () => stopChild(child), kill };
}
