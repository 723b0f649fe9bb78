import { readFile, readdir } from 'node:fs/promises';

/** Linux reports CPU time in 1/100 s. */
export const TICK_MICROS = 10_000;

/** Busy CPU time of the whole machine so far, in clock ticks (Linux), or null. */
export async function machineTicks(): Promise<number | null> {
  try {
    const fields = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user, nice, system, irq, softirq, steal: everything but idle and iowait.
    return fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7];
  } catch {
    return null;
  }
}

interface ProcStat {
  ppid: number;
  /** Own user + system time, and that of its children that have exited and been waited for. */
  ticks: number;
}

async function procStat(pid: number): Promise<ProcStat | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/**
 * CPU time of a process and all its descendants so far, in clock ticks, exited ones included
 * (a process that exits leaves its time in its parent's), or null where /proc cannot tell.
 */
export async function treeTicks(root: number): Promise<number | null> {
  let pids: number[];
  try {
    pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return null;
  }
  const stats = new Map<number, ProcStat>();
  for (const pid of pids) {
    const stat = await procStat(pid);
    if (stat) stats.set(pid, stat);
  }
  if (!stats.has(root)) return null;
  let ticks = 0;
  for (const [pid, stat] of stats) {
    let ancestor: number | undefined = pid;
    for (let depth = 0; ancestor && ancestor !== root && depth < 64; depth++) ancestor = stats.get(ancestor)?.ppid;
    if (ancestor === root) ticks += stat.ticks;
  }
  return ticks;
}

/** The parent of a process, or null where /proc cannot tell. */
export async function parentOf(pid: number): Promise<number | null> {
  return (await procStat(pid))?.ppid ?? null;
}
