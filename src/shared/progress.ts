/** Where progress goes: stderr by default, so that stdout stays the command's answer. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  stream?: ProgressStream;
  /** Without a terminal, at most one line per this many milliseconds (the last one always). */
  everyMs?: number;
  now?: () => number;
}

export interface Progress {
  /** `done` items of the total are finished. */
  update(done: number): void;
}

const count = (n: number) => n.toLocaleString('en-US');

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;
}

/**
 * Progress of long work: `label 150,000/1,000,000 (15%, 48,000/s, ~18 s left)`. At a terminal
 * one line is rewritten in place; in a log (CI, a pipe) a new line at most every `everyMs`, so
 * that a million-row seed does not print a thousand lines.
 */
export function createProgress(label: string, total: number, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const everyMs = options.everyMs ?? 2_000;
  const started = now();
  let lastLine = -Infinity;
  return {
    update(done) {
      const at = now();
      const finished = done >= total;
      if (!stream.isTTY && !finished && at - lastLine < everyMs) return;
      lastLine = at;
      const seconds = Math.max((at - started) / 1000, 0.001);
      const rate = done / seconds;
      const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
      const tail = finished ? `in ${duration(seconds)}` : `~${duration((total - done) / Math.max(rate, 1e-9))} left`;
      const line = `${label} ${count(done)}/${count(total)} (${percent}%, ${count(Math.round(rate))}/s, ${tail})`;
      // `\x1b[K` clears what a longer previous line left behind.
      stream.write(stream.isTTY ? `\r${line}\x1b[K${finished ? '\n' : ''}` : `${line}\n`);
    },
  };
}
