import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import client from 'prom-client';
import type { AppDeps } from '../app-deps.js';
import { unauthorized } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import { answeredStatus, wasStream, type RequestDone } from './request-tracking.js';
import { sendError } from './send-error.js';

const LABELS = ['face', 'route', 'method', 'status'] as const;
/** Seconds; the API's own latencies sit between a millisecond and a few seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A low-cardinality route label: the tRPC procedure (`contents.get`, whichever face called it),
 * the express route of the file endpoints, or `unmatched` (404s must not mint a label per path).
 */
function routeOf(req: Request, procedures: string[] | undefined, mcp: string[] | undefined): string {
  // An MCP request is labelled by what it did: a tool (its procedure) or an MCP method.
  if (mcp) return mcp.length === 1 ? mcp[0] : 'batch';
  if (procedures?.length === 1) return procedures[0];
  if (procedures && procedures.length > 1) return 'batch';
  const route = (req as Request & { route?: { path?: unknown } }).route?.path;
  return typeof route === 'string' ? `files:${route}` : 'unmatched';
}

export interface OperatorMetrics {
  /** Observes every `/v1`, `/trpc` and `/mcp` request when it is over (see trackRequests). */
  observe: RequestDone;
  /** `GET /metrics`, Prometheus text format. */
  serve: RequestHandler;
}

/**
 * Process metrics for operators (Prometheus): requests and latency by route and status (event
 * streams apart, in their own counter), queue
 * depths and failed jobs, the request-log buffer, and Node's own (memory, CPU, event loop).
 * One registry per app, so that several APIs in one process (tests) do not share counters.
 */
export function createOperatorMetrics(deps: AppDeps): OperatorMetrics {
  const registers = [new client.Registry()];
  const [registry] = registers;
  client.collectDefaultMetrics({ register: registry, prefix: 'tabula_' });
  const requests = new client.Counter({ name: 'tabula_http_requests_total', help: 'API requests by face (v1, trpc, mcp), route and status', labelNames: LABELS, registers });
  // Event streams last as long as their client stays: counted apart, never a request latency.
  const streams = new client.Counter({
    name: 'tabula_http_streams_total',
    help: 'Event streams (events/stream, events.subscribe) that ended, by face, route and the status they started with; not in the request figures',
    labelNames: LABELS,
    registers,
  });
  const duration = new client.Histogram({
    name: 'tabula_http_request_duration_seconds',
    help: 'API request latency by face, route and status',
    labelNames: LABELS,
    buckets: DURATION_BUCKETS,
    registers,
  });
  new client.Gauge({
    name: 'tabula_queue_jobs',
    help: 'pg-boss jobs per queue and state (ready, deferred, active, failed: retained recent failures)',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const queue of await deps.boss.getQueues()) {
        this.set({ queue: queue.name, state: 'ready' }, queue.readyCount);
        this.set({ queue: queue.name, state: 'deferred' }, queue.deferredCount);
        this.set({ queue: queue.name, state: 'active' }, queue.activeCount);
        this.set({ queue: queue.name, state: 'failed' }, queue.failedCount);
      }
    },
  });
  new client.Gauge({
    name: 'tabula_request_log_buffered',
    help: 'Request log entries waiting in this process for the queue',
    registers,
    collect() {
      this.set(deps.requestLogs?.size ?? 0);
    },
  });
  new client.Gauge({
    name: 'tabula_request_log_dropped',
    help: 'Request log entries this process dropped because its buffer was full (queue unreachable)',
    registers,
    collect() {
      this.set(deps.requestLogs?.dropped ?? 0);
    },
  });
  new client.Gauge({
    name: 'tabula_realtime_streams',
    help: 'Realtime event streams open on this process (SSE and tRPC subscriptions)',
    registers,
    collect() {
      this.set(deps.streams.size);
    },
  });
  new client.Counter({
    name: 'tabula_realtime_events_sent_total',
    help: 'Events this process wrote to realtime streams',
    registers,
    collect() {
      this.reset();
      this.inc(deps.streams.eventsSent);
    },
  });

  // Read replicas (docs/scaling-out.md#read-replicas); no series without DATABASE_REPLICA_URLS.
  new client.Counter({
    name: 'tabula_db_reads_total',
    help: 'Read-only GETs routed by this process, by the node chosen (primary, replica-1, ...); only with read replicas configured',
    labelNames: ['node'],
    registers,
    collect() {
      this.reset();
      if (deps.reads.size > 0) for (const node of deps.reads.status().nodes) this.inc({ node: node.name }, node.reads);
    },
  });
  new client.Gauge({
    name: 'tabula_replica_up',
    help: 'Whether the last health check of this process reached the replica as a standby (1) or not (0)',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const r of deps.reads.status().replicas) this.set({ replica: r.name }, r.reachable ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'tabula_replica_lag_seconds',
    help: 'How far the replica was behind the primary at the last health check (absent while unreachable)',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const r of deps.reads.status().replicas) if (Number.isFinite(r.lagMs)) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  new client.Counter({
    name: 'tabula_replica_fallbacks_total',
    help: 'Queries of reads routed to the replica that failed there (gone, or not answerable yet) and were answered by the primary',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const r of deps.reads.status().replicas) this.inc({ replica: r.name }, r.fallbacks);
    },
  });

  // The label-bound children, by label values: prom-client hashes and checks a label object on
  // every call otherwise, a visible share of a cheap request's CPU.
  const children = new Map<string, { count: client.Counter.Internal; time: client.Histogram.Internal<(typeof LABELS)[number]> }>();
  const childFor = (face: string, route: string, method: string, status: string) => {
    const key = `${face} ${route} ${method} ${status}`;
    let child = children.get(key);
    if (!child) {
      child = { count: requests.labels(face, route, method, status), time: duration.labels(face, route, method, status) };
      children.set(key, child);
    }
    return child;
  };

  const observe: RequestDone = (req, res, facts) => {
    const face = req.originalUrl.startsWith('/trpc') ? 'trpc' : req.originalUrl.startsWith('/mcp') ? 'mcp' : 'v1';
    const status = String(answeredStatus(res));
    if (wasStream(res)) {
      streams.labels(face, routeOf(req, facts.procedures, facts.mcp), req.method, status).inc();
      return;
    }
    const child = childFor(face, routeOf(req, facts.procedures, facts.mcp), req.method, status);
    child.count.inc();
    child.time.observe((performance.now() - facts.started) / 1000);
  };

  const token = deps.config.METRICS_TOKEN ? Buffer.from(`Bearer ${deps.config.METRICS_TOKEN}`) : null;
  const serve: RequestHandler = async (req, res, next) => {
    try {
      if (token) {
        const given = Buffer.from(req.get('authorization') ?? '');
        if (given.length !== token.length || !timingSafeEqual(given, token)) {
          res.setHeader('WWW-Authenticate', 'Bearer');
          sendError(res, describeError(unauthorized('Missing or invalid metrics token (METRICS_TOKEN)')));
          return;
        }
      }
      const body = await registry.metrics();
      res.set('Content-Type', registry.contentType).send(body);
    } catch (error) {
      next(error);
    }
  };
  return { observe, serve };
}
