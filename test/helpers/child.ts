import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { nodeFlagsOf } from '../../src/node-flags.js';
import { until } from './until.js';

/**
 * Scripts of the repository run as real child processes: through tsx, as a user runs them, or
 * in their compiled form from dist/ where a test starts the same entry point many times.
 */

export const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

/** The environment of a child: ours without DATABASE_URL (each test says which database), plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', LOG_FORMAT: 'json' };
  delete base.DATABASE_URL;
  return { ...base, ...env };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command ...args` in the repository to the end; never rejects on a non-zero exit (tests check `code`). */
function runToEnd(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: childEnv(env), cwd: root, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(Object.assign(error, { message: `${error.message}\n${stderr}` }));
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** Runs `tsx <script> ...args` to the end; never rejects on a non-zero exit (tests check `code`). */
export function runScript(script: string, args: string[] = [], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Finished> {
  return runToEnd(tsx, [path.join(root, script), ...args], env, timeoutMs);
}

/** Runs `npm run --silent <name> -- ...args` to the end, as a user runs an npm script; never rejects on a non-zero exit. */
export function runNpmScript(name: string, args: string[] = [], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Finished> {
  return runToEnd('npm', ['run', '--silent', name, '--', ...args], { npm_config_update_notifier: 'false', ...env }, timeoutMs);
}

/** The newest modification time (ms) of a TypeScript file under `dir`, or of `dir` itself when it is a file. */
function newestSource(dir: string): number {
  const stat = statSync(dir);
  if (stat.isFile()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** The newest source's modification time, read once per test file: the sources do not change while tests run. */
let sourcesAt: number | undefined;

/**
 * The compiled form of a source entry point (`src/cli/main.ts` → `dist/src/cli/main.js`), as
 * `npm run build` (the `pretest` script) leaves it. A build rewrites all of dist/, so an entry
 * older than any source means dist/ is stale: refused, so that a test never runs old code.
 */
export function builtEntry(source: string): string {
  const built = path.join(root, 'dist', source.replace(/\.ts$/, '.js'));
  let builtAt: number;
  try {
    builtAt = statSync(built).mtimeMs;
  } catch {
    throw new Error(`${path.relative(root, built)} is missing: run npm run build first (npm test does it)`);
  }
  sourcesAt ??= Math.max(...['src', 'workers', 'mikro-orm.config.ts'].map((entry) => newestSource(path.join(root, entry))));
  if (sourcesAt > builtAt) throw new Error(`${path.relative(root, built)} is older than the sources: run npm run build first (npm test does it)`);
  return built;
}

/** Node's arguments for the compiled `source` (see builtEntry), with the Node.js options its npm script passes (src/node-flags.ts). */
export function builtArgs(source: string): string[] {
  return [...nodeFlagsOf(source), builtEntry(source)];
}

/**
 * Runs the compiled `source` (see builtArgs) with node and the compiled version check, as
 * `npm run start:api` runs the API: one node process, nothing compiled at start. For tests that
 * start an entry point many times; at least one test per npm script still starts it the npm way.
 */
export function runBuilt(source: string, args: string[] = [], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Finished> {
  return runToEnd(process.execPath, ['--import', path.join(root, 'dist/src/check-node.js'), ...builtArgs(source), ...args], env, timeoutMs);
}

export interface Running {
  child: ChildProcess;
  /** Everything written so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves once the output matches `pattern`; fails after `ms` or when the child exits first. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts a long-running `tsx <script>` (a server). */
export function startScript(script: string, env: Record<string, string> = {}): Running {
  const child = spawn(tsx, [path.join(root, script)], { env: childEnv(env), cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    async waitFor(pattern, ms = 20_000) {
      return until(() => {
        const match = text.match(pattern);
        if (!match && child.exitCode !== null) throw new Error(`${script} exited (${child.exitCode}) before printing ${pattern}:\n${text}`);
        return match;
      }, ms, `${script} to print ${pattern}`, 50).catch((error: Error) => {
        throw error.message.startsWith('timed out') ? new Error(`${error.message}:\n${text}`) : error;
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
