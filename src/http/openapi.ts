import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import type { z } from 'zod';
import type { Meta } from '../trpc/trpc.js';
import { errorsOf } from '../openapi/error-rules.js';
import { addJsonExample, hintsOf, localResolver } from '../openapi/examples.js';
import { completeParameters, type Parameter } from '../openapi/parameters.js';
import { cacheHeaders, commonHeaders, ERROR_SCHEMA, errorResponse, IF_MATCH_PARAMETER, IF_NONE_MATCH_PARAMETER, notModifiedResponse, RESPONSE_HEADERS, type HeaderName } from '../openapi/responses.js';
import { pruneUnusedComponents } from '../openapi/prune.js';
import { documentTags } from '../openapi/tags.js';

type MediaTypes = Record<string, { schema?: unknown; example?: unknown }>;
interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: MediaTypes };
  responses?: Record<string, { description?: string; headers?: unknown; content?: MediaTypes }>;
}

/** What the procedures say about an operation that the generated document does not keep. */
interface ProcedureFacts {
  meta: Meta;
  shape?: Record<string, z.ZodType>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function proceduresByOperation(appRouter: AnyRouter): Map<string, ProcedureFacts> {
  const facts = new Map<string, ProcedureFacts>();
  const procedures = appRouter._def.procedures as Record<string, { _def: { meta?: Meta; inputs?: unknown[] } }>;
  for (const procedure of Object.values(procedures)) {
    const meta = procedure._def.meta;
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    const input = procedure._def.inputs?.[0] as { shape?: Record<string, z.ZodType> } | undefined;
    facts.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, { meta, shape: input?.shape });
  }
  return facts;
}

/** `get /{projectId}/tables/{tableId}` → `get-projectId-tables-tableId`, for paths without one. */
const fallbackOperationId = (method: string, path: string) =>
  [method, ...path.split('/').filter(Boolean).map((part) => part.replace(/[{}]/g, ''))].join('-');

/** The success response: the status the procedure really answers, its headers and an example. */
function successResponses(op: Operation, status: number | undefined): NonNullable<Operation['responses']> {
  const responses = op.responses ?? {};
  const ok = responses['200'];
  if (status === 204) return { '204': { description: 'Done; no body', headers: commonHeaders() } };
  if (status === 201) return { '201': { ...ok, description: 'Created; `Location` names the new resource', headers: commonHeaders('Location') } };
  // An extra path documents its own successes (e.g. 200/206/304 of downloads, 201 of uploads).
  const successes = Object.entries(responses).filter(([code]) => /^[23]/.test(code));
  const extra = (code: string): HeaderName[] => (code === '201' ? ['Location'] : []);
  return Object.fromEntries(successes.map(([code, response]) => [code, { ...response, headers: { ...commonHeaders(...extra(code)), ...(response.headers as object) } }]));
}

/**
 * The OpenAPI document of `/v1`, generated from the procedures and completed centrally where
 * the generator cannot know the truth, so that a new router needs only a summary and a tag in
 * its meta: success statuses (201/204) and headers, every error the operation can answer
 * (derived from its kind, see error-rules.ts) with the error body (docs/reliability.md#errors), parameter descriptions,
 * examples, and the resource groups.
 */
export function buildOpenApiDocument(appRouter: AnyRouter, extraPaths: Record<string, unknown> = {}): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Tabula API',
    version: '1.0.0',
    description:
      'Project-scoped headless content API. Every request carries `Authorization: Bearer <token or key>`: ' +
      'an account token (`tat_…`) for a person, or an API key (`tak_…`) of one project. ' +
      'Errors are `{ "error": { "code", "message", "details" } }`; every response carries `X-Request-Id` and the `RateLimit-*` headers. ' +
      'Each project also serves its own document, with its tables’ contents typed by their columns: `GET /v1/{projectId}/openapi.json`.',
    baseUrl: '/v1',
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An account token (`tat_…`) or an API key (`tak_…`)' },
    },
    paths: extraPaths as never,
  });
  // The generator's own error schemas (`error.BAD_REQUEST`, ...) describe a body Tabula never sends.
  const schemas = Object.fromEntries(Object.entries(doc.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  doc.components = { ...doc.components, schemas: { ...schemas, Error: ERROR_SCHEMA as never }, headers: { ...RESPONSE_HEADERS } as never };
  const resolve = localResolver(doc);

  const procedures = proceduresByOperation(appRouter);
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Record<string, Operation>][]) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const facts = procedures.get(`${method} ${path}`);
      op.operationId ??= fallbackOperationId(method, path);
      op.summary ??= `${method.toUpperCase()} ${path}`;
      for (const tag of op.tags ?? []) tags.add(tag);
      completeParameters(op.parameters ?? [], facts?.shape);
      const hints = hintsOf(op.tags);
      addJsonExample(op.requestBody?.content, resolve, hints);

      const success = successResponses(op, facts?.meta.successStatus);
      const etag = facts?.meta.etag;
      if (etag === 'write') op.parameters = [...(op.parameters ?? []), IF_MATCH_PARAMETER];
      for (const [code, response] of Object.entries(success)) {
        if (etag && code !== '204') response.headers = { ...(response.headers as object), ETag: { $ref: '#/components/headers/ETag' } };
      }
      const cache = facts?.meta.httpCache;
      if (cache) {
        op.parameters = [...(op.parameters ?? []), IF_NONE_MATCH_PARAMETER];
        for (const response of Object.values(success)) response.headers = { ...(response.headers as object), ...cacheHeaders(etag === 'read') };
      }
      for (const response of Object.values(success)) addJsonExample(response.content, resolve, hints);
      const errors = errorsOf({
        method,
        tags: op.tags ?? [],
        authenticated: (op.security?.length ?? 0) > 0,
        hasPathParams: path.includes('{'),
        hasQuery: (op.parameters ?? []).some((p) => p.in === 'query'),
        success: Number(Object.keys(success)[0]),
        conditional: etag === 'write',
      });
      // An extra (plain express) path may document statuses of its own; the generator's error
      // responses of procedures describe its body, not Tabula's, and are all replaced.
      const own = facts ? {} : Object.fromEntries(Object.entries(op.responses ?? {}).filter(([code]) => /^[45]/.test(code) && !errors.has(code)));
      const errorResponses = Object.fromEntries([...errors].map(([status, specific]) => [status, errorResponse(status, specific)]));
      const notModified = cache ? { '304': notModifiedResponse(etag === 'read') } : {};
      op.responses = Object.fromEntries(Object.entries({ ...success, ...notModified, ...errorResponses, ...own }).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  doc.tags = documentTags(tags);
  pruneUnusedComponents(doc as { components?: Record<string, unknown> });
  return doc;
}

/**
 * The `/docs` page: Swagger UI rendering `document`, its assets served from this origin. At
 * `/docs` (no slash) the asset middleware answers 301 to `/docs/`: the page loads them by
 * relative URL.
 */
export function docsPage(document: OpenAPIObject): Router {
  // swagger-ui-express writes `customCss` into the page's <style> as is: unset, it is "undefined".
  const page = swaggerUi.setup(document, { customSiteTitle: 'Tabula API reference', customCss: '' });
  const router = Router();
  // Else swagger-ui-dist's own index.html, a demo that loads the Petstore document from the internet.
  router.get('/index.html', page);
  router.use(swaggerUi.serve, page);
  return router;
}
