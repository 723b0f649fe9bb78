import { z } from 'zod';
import { isoDate, pathId } from '../../shared/schemas.js';

/** Longest range per granularity: a chart's worth of buckets, not an unbounded scan. */
export const MAX_BUCKETS = { hour: 24 * 31, day: 366 } as const;

export const metricsInput = z
  .object({
    workspaceId: pathId('Workspace id'),
    from: z.iso.datetime({ offset: true }).optional().describe('Start (ISO-8601, inclusive; rounded down to the bucket). Default: `to` minus 24 hours (hour) or 30 days (day)'),
    to: z.iso.datetime({ offset: true }).optional().describe('End (ISO-8601, exclusive). Default: now'),
    granularity: z.enum(['hour', 'day']).default('hour').describe('Size of the `series` buckets'),
    projectId: z.uuid().optional().describe('Only this project of the workspace: `projects`, `keys`, `series` and `totals` are its own'),
    apiKeyId: z.uuid().optional().describe("Only requests made with this API key: request figures count them alone (contents, files and storage stay the projects')"),
  });
export type MetricsInput = z.infer<typeof metricsInput>;

const requestCounts = {
  requests: z.number().int().describe('Requests, event streams not included'),
  errors: z.number().int().describe('Requests answered with status 400 or above'),
  streams: z
    .number()
    .int()
    .describe('Event streams (events/stream, events.subscribe), counted apart: a stream is not a request, its end not an error, its length not a latency'),
};
const liveCounts = {
  contents: z.number().int().describe('Contents rows now (all statuses)'),
  files: z.number().int().describe('Files now'),
  storageBytes: z.number().int().describe('Bytes of all files now'),
};

export const metricsOutput = z.object({
  workspaceId: z.uuid(),
  from: isoDate,
  to: isoDate,
  granularity: z.enum(['hour', 'day']),
  totals: z.object({ ...requestCounts, ...liveCounts }),
  projects: z.array(z.object({ projectId: z.uuid(), name: z.string(), ...requestCounts, ...liveCounts })),
  keys: z.array(z.object({ apiKeyId: z.uuid(), projectId: z.uuid(), name: z.string(), ...requestCounts })),
  series: z.array(
    z.object({
      bucket: isoDate,
      ...requestCounts,
      p50Ms: z.number().nullable().describe('Median latency of requests (event streams not included; from a histogram: exact to its bucket width, about 25 %)'),
      p95Ms: z.number().nullable(),
    }),
  ),
});
export type MetricsOutput = z.infer<typeof metricsOutput>;
