import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import type { Meta } from '../trpc/trpc.js';

type Operation = {
  responses?: Record<string, unknown>;
  security?: unknown;
  operationId?: string;
};

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: {
          type: 'string',
          enum: [
            'INVALID_JSON', 'INVALID_QUERY', 'BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND',
            'METHOD_NOT_ALLOWED', 'CONFLICT', 'INVALID_TRANSITION', 'PAYLOAD_TOO_LARGE',
            'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR',
          ],
        },
        message: { type: 'string' },
        details: {
          type: ['array', 'null'],
          description: 'One entry per offending field for 422; null otherwise',
          items: {
            type: 'object',
            required: ['field', 'message'],
            properties: { field: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Malformed input (BAD_REQUEST, INVALID_JSON, INVALID_QUERY)',
  '401': 'Missing or invalid credential (UNAUTHORIZED)',
  '403': 'Credential lacks the right (FORBIDDEN)',
  '404': 'Unknown or deleted resource (NOT_FOUND)',
  '409': 'Unique value taken or state conflict (CONFLICT, INVALID_TRANSITION)',
  '413': 'Body too large (PAYLOAD_TOO_LARGE)',
  '415': 'Body is not application/json (UNSUPPORTED_MEDIA_TYPE)',
  '422': 'Well-formed but invalid (VALIDATION_ERROR), with details',
  '429': 'Rate limit exceeded (RATE_LIMITED), see Retry-After',
  '500': 'Server fault (INTERNAL_ERROR); the request id is in X-Request-Id',
};

const errorResponse = (status: string) => ({
  description: ERROR_DESCRIPTIONS[status] ?? 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** Which errors an operation can answer, from its method. */
function errorStatuses(method: string, hasBody: boolean): string[] {
  const statuses = ['400', '401', '403', '404', '429', '500'];
  if (hasBody) statuses.push('413', '415', '422', '409');
  else if (method === 'delete') statuses.push('409');
  return statuses.sort();
}

/**
 * The OpenAPI document of `/v1`, generated from the procedures and then corrected where the
 * generator cannot know the truth: success statuses (201/204) and the SPEC §3 error body.
 */
export function buildOpenApiDocument(appRouter: AnyRouter, extraPaths: Record<string, unknown> = {}): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Tabula API',
    version: '1.0.0',
    description:
      'Project-scoped headless content API. Every request carries `Authorization: Bearer <token or key>`. ' +
      'Errors are `{ "error": { "code", "message", "details" } }`; every response carries `X-Request-Id`.',
    baseUrl: '/v1',
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Account token (tat_…) or API key (tak_…)' } },
    paths: extraPaths as never,
  });
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, Error: ERROR_SCHEMA as never } };

  const successByOperation = new Map<string, number>();
  for (const [name, procedure] of Object.entries(appRouter._def.procedures) as [string, { _def: { meta?: Meta } }][]) {
    const meta = procedure._def.meta;
    if (meta?.openapi) successByOperation.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta.successStatus ?? 200);
    void name;
  }

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const status = successByOperation.get(`${method} ${path}`);
      const responses = op.responses as Record<string, { description?: string }>;
      const ok = responses['200'];
      const hasBody = ['post', 'put', 'patch'].includes(method);
      const corrected: Record<string, unknown> = {};
      if (status === 204) corrected['204'] = { description: 'Deleted; no body' };
      else if (status === 201) corrected['201'] = { ...ok, description: 'Created; `Location` names the new resource' };
      else if (ok) corrected['200'] = ok;
      else Object.assign(corrected, Object.fromEntries(Object.entries(responses).filter(([code]) => code.startsWith('2'))));
      for (const code of errorStatuses(method, hasBody)) corrected[code] = errorResponse(code);
      op.responses = corrected;
    }
  }
  return doc;
}
