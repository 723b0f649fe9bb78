import express, { type ErrorRequestHandler } from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { AppDeps } from '../app-deps.js';
import { databaseProbe, queueProbe } from '../db/readiness.sql.js';
import { runSqlOnPool, type SqlQuery } from '../db/sql.js';
import { SharedTokenBuckets } from '../rate-limit/token-bucket.js';
import { noRoute } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import { createContextFactory } from '../trpc/context.js';
import { appRouter } from '../trpc/router.js';
import { adminConsole } from './admin-console.js';
import { chain } from './chain.js';
import { cors } from './cors.js';
import { fileRoutes } from './files/file-routes.js';
import { eventStreamRoute, tokenFromQuery } from './events/event-stream-route.js';
import { contentsIoRoutes } from './contents-io/contents-io-routes.js';
import { documentPlainRoutes, plainOpenApiPaths, plainRouteEntries, plainRouter, type PlainRoute } from './plain-route.js';
import { buildOpenApiDocument, docsPage } from './openapi.js';
import { rateLimit } from './rate-limit.js';
import { requestId } from './request-id.js';
import { securityHeaders } from './security-headers.js';
import { logRequests } from './request-log.js';
import { mcpRoute } from './mcp.js';
import { factsOf, trackRequests } from './request-tracking.js';
import { createOperatorMetrics } from './prometheus.js';
import { sendError } from './send-error.js';
import { createV1Handler } from './v1.js';
import { buildV1Routes } from './v1-routes.js';

/** Answers within this time or reports not ready. */
const READY_TIMEOUT_MS = 2000;

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestId);
  // The docs page runs swagger-ui's own scripts and styles, served from this origin.
  app.use(securityHeaders({ contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'img-src': ["'self'", 'data:'] } } }));

  // Where a person opening the bare address starts: the console.
  app.get('/', (_req, res) => {
    res.redirect(302, '/admin/');
  });
  app.use('/admin', adminConsole());
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await readiness(deps);
    res.status(checks.ok ? 200 : 503).json(checks);
  });

  // Before the rate limiter: a preflight is answered here and costs no tokens.
  app.use(['/v1', '/trpc'], cors(deps));
  app.use('/v1', tokenFromQuery);

  // Routes whose bodies or answers stream: plain express, each one descriptor (plain-route.ts).
  const plainRoutes: PlainRoute[] = [...fileRoutes(deps), ...contentsIoRoutes(deps), eventStreamRoute(deps)];
  const openApiDocument = documentPlainRoutes(buildOpenApiDocument(appRouter, plainOpenApiPaths(plainRoutes)), plainRoutes);
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  app.use('/docs', docsPage(openApiDocument));

  const limiter = rateLimit(deps, new SharedTokenBuckets(deps.pool, {
    ratePerSecond: deps.config.RATE_LIMIT_PER_SECOND,
    burst: deps.config.RATE_LIMIT_BURST,
  }));
  const routes = buildV1Routes(appRouter, [{ method: 'GET', path: '/openapi.json' }, ...plainRouteEntries(plainRoutes)]);
  const operatorMetrics = createOperatorMetrics(deps);
  app.get('/metrics', operatorMetrics.serve);
  // Observed and logged first, so that refused requests (401, 429) count too.
  const observe = trackRequests([operatorMetrics.observe, ...(deps.requestLogs ? [logRequests(deps.requestLogs)] : [])]);
  // The plain routes go ahead of the procedures.
  app.use('/v1', chain([observe, limiter, plainRouter(deps, plainRoutes), createV1Handler(deps, appRouter, routes)]));

  // MCP for AI agents (docs/mcp.md): the procedures as tools, behind the same tracking and limiter.
  app.use('/mcp', chain([observe, limiter, mcpRoute(deps, appRouter)]));

  const createContext = createContextFactory(deps);
  const subscriptionRefusals = new WeakMap<object, unknown>();
  app.use(
    '/trpc',
    chain([
      observe,
      limiter,
      createExpressMiddleware({
        router: appRouter,
        createContext: ({ req, res }) => createContext({ req, res, facts: factsOf(res) }),
        maxBodySize: deps.config.BODY_MAX_BYTES,
        onError: ({ error, path, type, ctx }) => {
          if (type === 'subscription' && ctx) subscriptionRefusals.set(ctx, error);
          if (describeError(error).internal) deps.logger.error({ err: error, path }, 'trpc request failed');
        },
        // A subscription refused before it starts (401, 403, 429...) is answered with a stream of
        // its one error event, as tRPC sends it, under the error's HTTP status, so that proxies,
        // the request log and metrics see the refusal (docs/realtime.md). Errors after the start
        // come too late for this: the stream's status is sent by then.
        responseMeta: ({ ctx, type }) => {
          const refusal = type === 'subscription' && ctx ? subscriptionRefusals.get(ctx) : undefined;
          if (!refusal) return {};
          const { status, headers } = describeError(refusal);
          return { status, headers };
        },
      }),
    ]),
  );

  app.use((req, res) => {
    sendError(res, describeError(noRoute(req.method, req.path)));
  });
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const described = describeError(error);
    if (described.internal) deps.logger.error({ err: error, path: req.path }, 'request failed');
    sendError(res, described);
  };
  app.use(onError);
  return app;
}

async function readiness(deps: AppDeps): Promise<{ ok: boolean; database: boolean; queue: boolean }> {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS).unref());
  const probe = async (query: SqlQuery) => {
    try {
      await Promise.race([runSqlOnPool(deps.orm.em, query), timeout]);
      return true;
    } catch {
      return false;
    }
  };
  const [database, queue] = await Promise.all([probe(databaseProbe), probe(queueProbe)]);
  return { ok: database && queue, database, queue };
}
