import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { ProjectAccessLevel } from '../auth/project-access.js';
import { describeError } from '../errors/describe.js';
import type { Context } from './context.js';
import type { CacheKind } from '../modules/delivery/surrogate-keys.js';

/**
 * Who may call a procedure, as its authorization builder (procedures.ts) declares it: the
 * procedure's own check is what decides, and this says ahead of a call which credentials can
 * pass it (the MCP tool list, docs/mcp.md#tools). `project`: `/{projectId}/...` at `level`;
 * `byRules`: a custom role's rules decide the writes (table rows). `account`: account tokens only
 * (`/accounts`, `/workspaces/...`).
 */
export type ProcedureAccess = { scope: 'project'; level: ProjectAccessLevel; byRules: boolean } | { scope: 'account' };

/**
 * Procedure meta: the OpenAPI face plus the success status the `/v1` face answers, which the
 * document generator cannot know (it documents every success as 200), and `etag`: the
 * operation answers an `ETag` (`read`), or also takes `If-Match` and may answer 412 (`write`;
 * docs/contents.md#concurrent-edits); `httpCache`: a GET whose answer is conditional and
 * cacheable, and what it depends on (trpc/http-cache.ts). `access` is set by the authorization builders.
 */
export type Meta = OpenApiMeta<{ successStatus?: 200 | 201 | 204; etag?: 'read' | 'write'; httpCache?: CacheKind; access?: ProcedureAccess }>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Subscriptions (events.subscribe) send a ping while idle, as the REST stream does, so that
    // proxies keep them open.
    sse: { ping: { enabled: true, intervalMs: 15_000 } },
    // Both faces carry the error body of docs/reliability.md#errors under `data.error`; `/v1` unwraps it into the body.
    errorFormatter({ shape, error, type }) {
      const described = describeError(error, type);
      const { stack: _stack, ...data } = shape.data;
      return {
        ...shape,
        message: described.body.error.message,
        data: { ...data, httpStatus: described.status, error: described.body.error },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
/**
 * The base of every procedure. The authorization builders (procedures.ts) build on it; each
 * records the procedure on the request (operator metrics label requests by procedure) and gives
 * mutations their consistency token.
 */
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
