import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TOKEN_PREFIX, generateSecret } from '../../src/shared/secrets.js';
import { until } from '../helpers/until.js';

/**
 * `npm start` on a fresh data directory with no DATABASE_URL: the embedded PostgreSQL, the API
 * and the worker process come up, the CLI finds the running database, and SIGTERM stops it all.
 */
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const run = promisify(execFile);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded database)', () => {
  it('serves /healthz and /readyz, runs the workers, and stops cleanly on SIGTERM', { timeout: 120_000 }, async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'tabula-start-'));
    const port = await freePort();
    const token = generateSecret(ACCOUNT_TOKEN_PREFIX);
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_EMAIL: 'boot@example.com', ADMIN_TOKEN: token };
    delete env.DATABASE_URL;
    let output = '';
    child = spawn(tsx, [path.join(root, 'src/main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const base = `http://127.0.0.1:${port}`;
    await until(async () => {
      const ready = await fetch(`${base}/readyz`).then((r) => r.status === 200, () => false);
      if (!ready) expect(child!.exitCode, output).toBeNull();
      return ready;
    }, 30_000, 'readiness within 30 s', 250);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const me = await fetch(`${base}/v1/accounts/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(await me.json()).toMatchObject({ email: 'boot@example.com' });
    await until(() => output.includes('workers started'), 10_000, "'workers started' in the output", 50).catch(() => undefined);
    expect(output).toContain('workers started');
    // Piped output is JSON lines; the banner is one of them (ADMIN_TOKEN given: it hints at the CLI).
    const banner = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line)).find((r) => r.msg?.startsWith('Tabula on'));
    expect(banner, output).toMatchObject({ console: `${base}/admin/`, rest: `${base}/v1`, docs: `${base}/docs`, trpc: `${base}/trpc` });
    expect(banner.msg).toContain('npm run cli -- token create --email');

    // The CLI reaches the database that `npm start` runs, and its token works on the API.
    const { stdout } = await run(tsx, [path.join(root, 'src/cli/main.ts'), 'token', 'create', '--email', 'cli@example.com'], { env });
    const cliToken = stdout.trim();
    expect(cliToken).toMatch(/^tat_[A-Za-z0-9]{43}$/);
    const cliMe = await fetch(`${base}/v1/accounts/me`, { headers: { authorization: `Bearer ${cliToken}` } });
    expect(await cliMe.json()).toMatchObject({ email: 'cli@example.com' });

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Nothing keeps running on the data directory: the embedded server is gone.
    const { stdout: ps } = await run('ps', ['-eo', 'args']);
    expect(ps).not.toContain(path.join(dataDir, 'pg'));
  });
});
