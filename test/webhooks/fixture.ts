import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, type World } from '../contents/fixture.js';
import pg from 'pg';
import { BOSS_SCHEMA } from '../../src/jobs/boss.js';
import { QUEUES } from '../../src/jobs/queues.js';


/** Shared helpers of the webhook suite: real receivers on 127.0.0.1, real workers. */

/** How a receiver answers one request: a status, a status with headers and a delay, or never. */
export type Reply = number | { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  // The delivered event; tests read its fields.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Replies in order; the last one repeats. Replaceable at any time. */
  script: Reply[];
  /** When set, answers each request instead of the script (the script is then left alone). */
  decide?: (request: ReceivedRequest) => Reply;
  close(): Promise<void>;
}

/** An HTTP endpoint on 127.0.0.1 that records every request (after reading its whole body). */
export async function startReceiver(script: Reply[] = [200]): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const receiver: Receiver = { url: '', requests, script, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(rawBody);
      } catch {
        json = null;
      }
      const request = { headers: req.headers, rawBody, json, at: Date.now() };
      requests.push(request);
      const reply = receiver.decide ? receiver.decide(request) : receiver.script.length > 1 ? receiver.script.shift()! : (receiver.script[0] ?? 200);
      if (reply === 'hang') return;
      const { status, headers = {}, delayMs = 0 } = typeof reply === 'number' ? { status: reply } : reply;
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end('{"ok":true}');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Verifies a request with the `standardwebhooks` package (an independent implementation). */
export function verify(secret: string, request: ReceivedRequest): unknown {
  return new Webhook(secret).verify(request.rawBody, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}

/** Test configuration: a fast retry schedule, and receivers on 127.0.0.1 allowed. */
export const WEBHOOK_ENV = { WEBHOOK_RETRY_DELAYS: '1,1,1', WEBHOOKS_ALLOW_PRIVATE: 'true' };

export interface WebhookEnv {
  t: TestApi;
  w: World;
  workers: RunningWorkers;
  storageDir: string;
  env: Record<string, string>;
  startWorkers(): Promise<RunningWorkers>;
  close(): Promise<void>;
}

/** The API, a world (workspace, project, keys) and the workers. */
export async function startWebhookEnv(extra: Record<string, string> = {}): Promise<WebhookEnv> {
  const storageDir = await mkdtemp(path.join(os.tmpdir(), 'tabula-webhooks-'));
  const env = { ...WEBHOOK_ENV, STORAGE_DIR: storageDir, ...extra };
  const t = await startTestApi(env);
  const w = await buildWorld(t);
  // Every worker, as `npm run start:worker` runs them (whatever moves events to the fan-out included).
  const start = () => startWorkers(loadConfig({ ...env, LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'));
  const result: WebhookEnv = {
    t,
    w,
    workers: await start(),
    storageDir,
    env,
    startWorkers: start,
    close: async () => {
      await result.workers.stop(2_000);
      await t.close();
      await rm(storageDir, { recursive: true, force: true });
    },
  };
  return result;
}

export const webhooksPath = (w: World, id?: string) => `/v1/${w.projectId}/webhooks${id ? `/${id}` : ''}`;

export interface CreatedWebhook {
  id: string;
  secret: string;
  url: string;
  events: string[];
  tableIds: string[];
  active: boolean;
  disabledReason: string | null;
}

/** POST a webhook with the admin token; asserts 201. */
export async function createWebhook(w: World, body: Record<string, unknown>): Promise<CreatedWebhook> {
  const res = await w.t.call('POST', webhooksPath(w), { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

export async function getWebhook(w: World, id: string): Promise<CreatedWebhook> {
  const res = await w.t.call('GET', webhooksPath(w, id));
  expect(res.status, res.text).toBe(200);
  return res.json;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  type: string;
  attempt: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  createdAt: string;
}

export async function deliveries(w: World, webhookId: string): Promise<DeliveryRecord[]> {
  const res = await w.t.call('GET', `${webhooksPath(w, webhookId)}/deliveries?size=1000`);
  expect(res.status, res.text).toBe(200);
  return res.json.list;
}

/** Requests of one event type (by body). */
export const ofType = (receiver: Receiver, type: string) => receiver.requests.filter((r) => r.json?.type === type);

/**
 * Delivery jobs of one webhook still to run (waiting, retrying or running). None left, with the
 * attempts recorded, means no further attempt of its events can arrive.
 */
export async function pendingDeliveries(t: TestApi, webhookId: string): Promise<number> {
  const db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
  try {
    const { rows } = await db.query(
      `select count(*)::int as n from ${BOSS_SCHEMA}.job where name = $1 and data->>'webhookId' = $2 and state in ('created', 'retry', 'active')`,
      [QUEUES.deliveries.name, webhookId],
    );
    return rows[0].n;
  } finally {
    await db.end();
  }
}
