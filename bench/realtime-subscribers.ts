/**
 * A process holding COUNT open event streams of URL (SSE, `Authorization: Bearer TOKEN`), for
 * bench/realtime.ts. It counts each stream's events and measures, for each event, the time from
 * its `createdAt` (set by the API before the write commits) to its receipt here. It answers the
 * parent's IPC messages (only events whose data contains MATCH count): `ready` when every stream has started, and a report on `report`.
 */
import http from 'node:http';
import { percentile } from './percentile.js';

const url = new URL(process.env.URL!);
const token = process.env.TOKEN!;
const count = Number(process.env.COUNT);
/** Only events whose data holds this text are counted (the scenario's own writes). */
const match = process.env.MATCH ?? '';

const counts = new Array<number>(count).fill(0);
let latencies: number[] = [];
let started = 0;
let failed = 0;

/** `"createdAt":"2026-…Z"` of each `data:` line of a chunk. */
const CREATED_AT = /"createdAt":"([^"]+)"/;

function open(index: number): void {
  const req = http.get(url, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      failed++;
      res.resume();
      return;
    }
    res.setEncoding('utf8');
    let rest = '';
    let connected = false;
    res.on('data', (chunk: string) => {
      const now = Date.now();
      const text = rest + chunk;
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (!connected && line === ': connected') {
          connected = true;
          started++;
        } else if (line.startsWith('data: ') && line.includes(match)) {
          const createdAt = CREATED_AT.exec(line)?.[1];
          if (createdAt) {
            counts[index]++;
            latencies.push(now - Date.parse(createdAt));
          }
        }
      }
    });
  });
  req.on('error', () => failed++);
}

for (let i = 0; i < count; i++) open(i);

process.on('message', (message: string) => {
  if (message === 'ready?') process.send!({ started, failed });
  if (message === 'report') {
    const sorted = latencies.sort((a, b) => a - b);
    process.send!({ counts, events: sorted.length, p50: percentile(sorted, 50) ?? null, p99: percentile(sorted, 99) ?? null, max: sorted.at(-1) ?? null });
    latencies = [];
    counts.fill(0);
  }
});
