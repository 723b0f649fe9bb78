import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A second machine for browser tests: a network namespace joined to this one by a veth pair.
 * A browser started inside it reaches the server at a private, non-loopback address, as a person
 * on the LAN would. That matters to Chromium: 127.0.0.0/8 and localhost are "potentially
 * trustworthy" (secure contexts, never upgraded to https), any other http:// origin is not.
 */
export interface TestHost {
  /** The server's address as the namespace sees it (the veth end in this namespace). */
  serverAddress: string;
  /** An executable that runs `command` (with its arguments) inside the namespace. */
  launcherFor(command: string): Promise<string>;
  close(): Promise<void>;
}

export type TestHostResult = { host: TestHost } | { unavailable: string };

const NAME_PREFIX = 'tabula-test-';
// Private addresses that no other interface here uses; the third octet is searched for a free /30.
const SUBNET_BASE = '10.254';
let created = 0;

const ip = async (...args: string[]) => (await run('ip', args)).stdout;

/**
 * Creates the namespace, or says why it cannot (no root, no `ip`, namespaces not permitted):
 * callers skip with that reason rather than pass silently.
 */
export async function createTestHost(): Promise<TestHostResult> {
  if (process.getuid?.() !== 0) return { unavailable: 'creating a network namespace needs root' };
  try {
    await ip('-V');
  } catch {
    return { unavailable: 'the `ip` command (iproute2) is not installed' };
  }
  await removeStaleHosts();

  const n = created++;
  const name = `${NAME_PREFIX}${process.pid}-${n}`;
  // Interface names are at most 15 characters.
  const hostSide = `tb${process.pid}h${n}`;
  const guestSide = `tb${process.pid}g${n}`;
  const octet = await freeOctet();
  const serverAddress = `${SUBNET_BASE}.${octet}.1`;
  const guestAddress = `${SUBNET_BASE}.${octet}.2`;
  const dir = await mkdtemp(path.join(tmpdir(), 'tabula-host-'));
  const close = async () => {
    // Deleting the namespace deletes the veth end inside it, and with it the pair.
    await ip('netns', 'del', name).catch(() => {});
    await ip('link', 'del', hostSide).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await ip('netns', 'add', name);
  } catch (error) {
    await close();
    return { unavailable: `ip netns add failed: ${(error as { stderr?: string }).stderr?.trim() || String(error)}` };
  }
  try {
    await ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', guestSide);
    await ip('link', 'set', guestSide, 'netns', name);
    await ip('addr', 'add', `${serverAddress}/30`, 'dev', hostSide);
    await ip('link', 'set', hostSide, 'up');
    await ip('-n', name, 'addr', 'add', `${guestAddress}/30`, 'dev', guestSide);
    await ip('-n', name, 'link', 'set', guestSide, 'up');
    await ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (error) {
    await close();
    return { unavailable: `could not wire the namespace: ${(error as { stderr?: string }).stderr?.trim() || String(error)}` };
  }
  const launcherFor = async (command: string) => {
    const file = path.join(dir, `${path.basename(command)}-in-${name}`);
    await writeFile(file, `#!/bin/sh\nexec ip netns exec '${name}' '${command}' "$@"\n`);
    await chmod(file, 0o755);
    return file;
  };
  return { host: { serverAddress, launcherFor, close } };
}

/** A third octet whose /30 no interface here has an address in. */
async function freeOctet(): Promise<number> {
  const used = await ip('-4', '-o', 'addr', 'show');
  for (let i = 0; i < 250; i++) {
    const octet = ((process.pid + i) % 250) + 1;
    if (!used.includes(` ${SUBNET_BASE}.${octet}.`)) return octet;
  }
  throw new Error(`no free ${SUBNET_BASE}.x.0/30 for a test host`);
}

/** Namespaces left by a test process that died before its cleanup ran (its pid is gone). */
async function removeStaleHosts(): Promise<void> {
  const listed = await ip('netns', 'list').catch(() => '');
  for (const line of listed.split('\n')) {
    const match = new RegExp(`^(${NAME_PREFIX}(\\d+)-\\d+)`).exec(line);
    if (!match || alive(Number(match[2]))) continue;
    await ip('netns', 'del', match[1]).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
