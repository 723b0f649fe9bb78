import { execFile, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { until } from './until.js';

/** Scripts of the repository run as real child processes through tsx, as a user runs them. */

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

/** Runs `tsx <script> ...args` to the end; never rejects on a non-zero exit (tests check `code`). */
export function runScript(script: string, args: string[] = [], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Finished> {
  return new Promise((resolve, reject) => {
    execFile(tsx, [path.join(root, script), ...args], { env: childEnv(env), cwd: root, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(Object.assign(error, { message: `${error.message}\n${stderr}` }));
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
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
