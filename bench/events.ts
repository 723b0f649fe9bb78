/**
 * Events benchmark (issue 6): deliveries per second from the event outbox to a local receiver
 * with 1 and 4 worker processes, and the end-to-end delay (commit → received) at a steady write
 * rate through the API.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { uuidv7 } from '../src/shared/ids.js';
import { adminToken, startChild, stopChild, type Fixture } from './setup.js';
import { percentile } from './percentile.js';

export interface EventsResult {
  workers: number;
  events: number;
  deliveriesPerSecond: number;
}

async function startReceiver() {
  const received: { id: string; at: number; createdAt: number }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; createdAt: string };
      received.push({ id: body.id, at: Date.now(), createdAt: Date.parse(body.createdAt) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const waitFor = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

export async function benchEvents(env: { api: string; databaseUrl: string; fixture: Fixture; count: number; log: (l: string) => void }) {
  const receiver = await startReceiver();
  const hook = await fetch(`${env.api}/v1/${env.fixture.projectId}/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', url: receiver.url, events: ['*'] }),
  });
  if (hook.status !== 201) throw new Error(`webhook create failed: ${hook.status} ${await hook.text()}`);
  const db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  const workerEnv = { DATABASE_URL: env.databaseUrl, LOG_LEVEL: 'warn', WEBHOOKS_ALLOW_PRIVATE: 'true' };
  const throughput: EventsResult[] = [];
  // Each phase starts from empty queues: events left by earlier scenarios (W1 writes thousands)
  // would otherwise be drained first and counted.
  const drain = () => db.query(`delete from event_outbox; delete from pgboss.job where name in ('events', 'webhook-deliveries')`);
  try {
    for (const workers of [1, 4]) {
      await drain();
      // Queue `count` committed events while no worker runs, then time how fast they drain.
      const ids = Array.from({ length: env.count }, () => uuidv7());
      const now = new Date().toISOString();
      await db.query(
        `insert into event_outbox (id, payload)
         select id, jsonb_build_object('id', id, 'type', 'contents.created', 'projectId', $2::text, 'tableId', $3::text,
                                       'createdAt', $4::text, 'data', jsonb_build_object('id', id))
           from unnest($1::uuid[]) as id`,
        [ids, env.fixture.projectId, env.fixture.tableId, now],
      );
      receiver.received.length = 0;
      const started = Date.now();
      const children = await Promise.all(Array.from({ length: workers }, () => startChild('workers/main.ts', workerEnv)));
      await waitFor(() => receiver.received.length >= env.count, 120_000);
      // Measured from the first delivery: the workers' start-up (compiling TypeScript) is not delivery time.
      const times = receiver.received.map((r) => r.at);
      const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
      throughput.push({ workers, events: receiver.received.length, deliveriesPerSecond: receiver.received.length / seconds });
      env.log(`events: ${workers} worker(s) delivered ${receiver.received.length}/${env.count} in ${seconds.toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(1)} s with start-up)`);
      await Promise.all(children.map(stopChild));
    }

    // End-to-end delay at a steady rate: writes through the API, one worker process running.
    await drain();
    const child = await startChild('workers/main.ts', workerEnv);
    await new Promise((r) => setTimeout(r, 2000));
    receiver.received.length = 0;
    const writes = 400;
    const contents = `${env.api}/v1/${env.fixture.projectId}/tables/${env.fixture.tableId}/contents`;
    for (let i = 0; i < writes; i++) {
      const res = await fetch(contents, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.fixture.writeKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { title: `event ${i}` } }),
      });
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 5));
    }
    // Two events per create (created, published).
    await waitFor(() => receiver.received.length >= writes * 2, 30_000);
    await stopChild(child);
    const delays = receiver.received.map((r) => r.at - r.createdAt);
    return { throughput, latency: { events: delays.length, p50Ms: percentile(delays, 50) ?? 0, p99Ms: percentile(delays, 99) ?? 0 } };
  } finally {
    await db.end();
    await receiver.close();
  }
}
