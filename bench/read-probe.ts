/**
 * A process that reads URLS (a JSON array, in turn, `Authorization: Bearer TOKEN`) for
 * bench/releases.ts, so that the reads' latencies are not lengthened by the bench process's own
 * work and garbage collection (its scavenges took 15-55 ms there, each one a stall of every read
 * in flight). It answers its parent's IPC messages:
 * - `{ start: 'saturated' }`: 8 readers back to back; `{ start: 'paced', perSecond }`: reads sent
 *   at that rate whatever the answers take, each one's latency counted from when it was due;
 *   answers `'started'`;
 * - `'stop'`: answers `{ samples: [startedAt, ms][], errors }` (startedAt on the clock of
 *   `performance.timeOrigin + performance.now()`, which the parent shares) once every read sent
 *   has been answered.
 * Requests go through node:http with a keep-alive agent: a lighter client than fetch on a machine
 * where the client shares the cores with the server.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const urls = (JSON.parse(process.env.URLS!) as string[]).map((url) => new URL(url));
const headers = { authorization: `Bearer ${process.env.TOKEN}` };
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const now = () => performance.timeOrigin + performance.now();

let samples: [number, number][] = [];
let errors = 0;
let next = 0;
let stop = false;
let timer: NodeJS.Timeout | undefined;
let pending: Promise<void>[] = [];

/** One read; its latency from `due`. */
const read = (due: number) =>
  new Promise<void>((resolve) => {
    const url = urls[next++ % urls.length];
    const req = http.get(url, { agent, headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        if (res.statusCode === 200) samples.push([due, now() - due]);
        else errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
  });

process.on('message', async (message: 'stop' | { start: 'saturated' | 'paced'; perSecond?: number }) => {
  if (message === 'stop') {
    stop = true;
    clearInterval(timer);
    await Promise.all(pending);
    process.send!({ samples, errors });
    samples = [];
    errors = 0;
    pending = [];
    return;
  }
  stop = false;
  if (message.start === 'saturated') {
    for (let loop = 0; loop < 8; loop++) {
      pending.push((async () => {
        while (!stop) await read(now());
      })());
    }
  } else {
    const perSecond = message.perSecond!;
    const began = now();
    let sent = 0;
    timer = setInterval(() => {
      const due = Math.floor(((now() - began) * perSecond) / 1000);
      for (; sent < due; sent++) pending.push(read(began + (sent * 1000) / perSecond));
    }, 1);
  }
  process.send!('started');
});
