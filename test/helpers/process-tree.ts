import { readdir, readFile } from 'node:fs/promises';

/** Process trees from /proc (Linux): what a started command left running, wherever it re-parented. */

async function parentOf(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return null;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** `pid` and every process below it (children, their children, ...), including detached ones. */
export async function processTree(pid: number): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const children = new Map<number, number[]>();
  for (const child of pids) {
    const parent = await parentOf(child);
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const tree: number[] = [];
  for (const queue = [pid]; queue.length; ) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** Whether `pid` still runs (a zombie, exited but not yet reaped by its parent, does not count). */
export async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** The command line of `pid`, for messages. */
export async function commandOf(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim();
}

/** Those of `pids` that still run, each as "pid command", for an assertion or a message. */
export async function stillRunning(pids: number[]): Promise<string[]> {
  const left: string[] = [];
  for (const pid of pids) if (await isRunning(pid)) left.push(`${pid} ${await commandOf(pid)}`);
  return left;
}

/** SIGKILL to those of `pids` that still run (test clean-up). */
export async function killAll(pids: number[]): Promise<void> {
  for (const pid of pids) if (await isRunning(pid)) process.kill(pid, 'SIGKILL');
}
