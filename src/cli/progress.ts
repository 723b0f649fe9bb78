/**
 * Progress of a long command on stderr (stdout stays its answer): on a terminal, one line
 * redrawn in place with a bar (when the total is known), rows, rows/s and elapsed time; elsewhere
 * (a pipe, a log file) a plain line every few seconds and a last one at the end.
 */
export interface Progress {
  /** `rows` more done; `fraction` (0..1) of the whole, when known. */
  update(rows: number, fraction?: number): void;
  done(): void;
}

const BAR = 24;
const TTY_EVERY_MS = 100;
const PLAIN_EVERY_MS = 5_000;

export function progress(label: string, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): Progress {
  const started = now();
  let rows = 0;
  let fraction: number | undefined;
  let shown = 0;
  const line = () => {
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
    const bar = fraction === undefined ? '' : `[${'#'.repeat(Math.round(fraction * BAR)).padEnd(BAR, '-')}] ${(fraction * 100).toFixed(0).padStart(3)}% `;
    return `${label}: ${bar}${rows.toLocaleString('en-US')} rows, ${rate.toLocaleString('en-US')} rows/s, ${seconds.toFixed(1)} s`;
  };
  return {
    update(more, part) {
      rows += more;
      if (part !== undefined) fraction = Math.min(1, part);
      const t = now();
      if (t - shown < (stream.isTTY ? TTY_EVERY_MS : PLAIN_EVERY_MS)) return;
      shown = t;
      stream.write(stream.isTTY ? `\r${line()}\u001b[K` : `${line()}\n`);
    },
    done() {
      stream.write(stream.isTTY ? `\r${line()}\u001b[K\n` : `${line()}\n`);
    },
  };
}
