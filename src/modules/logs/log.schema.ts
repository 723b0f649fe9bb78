import { z } from 'zod';
import { isoDate, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export const requestLogOutput = z.object({
  id: z.uuid(),
  requestId: z.string(),
  method: z.string(),
  path: z.string().describe('Path and query string as requested (at most 2048 characters)'),
  status: z.number().int(),
  durationMs: z.number().describe('Time from the request to the end of the response, in milliseconds'),
  apiKeyId: z.uuid().nullable(),
  accountId: z.uuid().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  console: z.boolean().describe('Made by the admin console (it sends `Tabula-Client: console`): a marker to tell its calls apart, which any client could send'),
  stream: z.boolean().describe('An event stream (events/stream, events.subscribe): its status is the one it started with, its duration how long it stayed open'),
  createdAt: isoDate,
});
export type RequestLogOutput = z.infer<typeof requestLogOutput>;

const instant = (what: string) =>
  z.iso.datetime({ offset: true }).transform((v) => new Date(v)).optional().describe(`${what} (ISO-8601, inclusive)`);

export const listLogsInput = z
  .object({
    projectId: pathId('Project id'),
    ...pageParams,
    status: z.number().int().min(100).max(599).optional().describe('Only responses with this HTTP status'),
    method: z.enum(HTTP_METHODS).optional().describe('Only requests with this HTTP method'),
    apiKeyId: z.uuid().optional().describe('Only requests made with this API key'),
    from: instant('Only requests made at or after this time'),
    to: instant('Only requests made at or before this time'),
    path: z.string().min(1).max(2048).optional().describe('Only requests whose path (with its query string) contains this text; the total is not counted then (null)'),
    console: z.enum(['only', 'exclude']).optional().describe("`only`: the admin console's calls only; `exclude`: every other call. The total is not counted then (null)"),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: '`from` must not be after `to`', path: ['from'] });
export type ListLogsInput = z.infer<typeof listLogsInput>;

export const logListOutput = listOf(requestLogOutput);
