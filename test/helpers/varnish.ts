import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './until.js';

/**
 * A real Varnish (`varnishd -F`, from the varnish and varnish-modules packages) running the
 * shipped docs/cdn/varnish.vcl, its backends replaced by the given API URLs, on an ephemeral
 * port with a working directory of its own.
 */
export interface RunningVarnish {
  url: string;
  close(): Promise<void>;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const VCL_PATH = path.join(ROOT, 'docs/cdn/varnish.vcl');
const VARNISHD = process.env.VARNISHD_PATH ?? '/usr/sbin/varnishd';

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

/** The shipped VCL with its backends section replaced by one backend per URL. */
export async function vclFor(backends: string[]): Promise<string> {
  const vcl = await readFile(VCL_PATH, 'utf8');
  const start = vcl.indexOf('# --- backends');
  const end = vcl.indexOf('# --- end of backends ---');
  if (start < 0 || end < 0) throw new Error(`${VCL_PATH} lost its backends markers`);
  const defs = backends.map((url, i) => {
    const { hostname, port } = new URL(url);
    return `backend tabula${i + 1} {\n  .host = "${hostname}";\n  .port = "${port}";\n}\n`;
  });
  const init = `sub vcl_init {\n  new api = directors.round_robin();\n${backends.map((_, i) => `  api.add_backend(tabula${i + 1});\n`).join('')}}\n`;
  return vcl.slice(0, start) + defs.join('') + init + vcl.slice(end);
}

export async function startVarnish(backends: string[]): Promise<RunningVarnish> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-varnish-'));
  // varnishd's workers run as another user when started as root: they read from here.
  await chmod(dir, 0o755);
  const vclFile = path.join(dir, 'tabula.vcl');
  await writeFile(vclFile, await vclFor(backends));
  const port = await freePort();
  let output = '';
  let child: ChildProcess;
  try {
    child = spawn(VARNISHD, ['-F', '-a', `127.0.0.1:${port}`, '-f', vclFile, '-n', path.join(dir, 'work'), '-s', 'malloc,64m', '-T', 'none'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    throw new Error(`could not start ${VARNISHD} (apt-get install varnish varnish-modules): ${String(error)}`);
  }
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => (output += `\n${String(error)} (apt-get install varnish varnish-modules)`));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`varnishd exited: ${output}`);
        return fetch(`${url}/health-of-varnish`, { method: 'PURGE' }).then(
          (res) => res.status === 400,
          () => false,
        );
      },
      20_000,
      `varnishd to listen on ${port}: ${output}`,
      100,
    );
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
