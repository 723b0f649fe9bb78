import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import type { RequestLogEntry } from './log-buffer.js';
import { buildSegments, derivedSegmentId, type LogSegment } from './log-segment.js';

/*
 * The request-logs job payload: the API's hand-over, already cut into the segments the worker
 * stores (one per project and clock hour, compressed, summarised), so the worker inserts them as they come.
 */

export interface LogJobData {
  /** Format version; jobs queued by an older API carry `z` (v2) or `entries` (v1) instead. */
  v: 3;
  segments: LogSegment[];
}

type LegacyRow = [string, string, string, string, number, number, string | null, string | null, string | null, string | null, number];
type LegacyJobData =
  | { v: 2; z: string }
  | { entries: (Omit<RequestLogEntry, 'createdAt'> & { createdAt: string | number })[] };

const inflate = promisify(inflateRaw);

export function logJob(segments: LogSegment[]): LogJobData {
  return { v: 3, segments };
}

/**
 * The segments of a request-logs job. Jobs an older API queued (entries, not segments) are cut
 * into segments here, with ids derived from the job's, so a retried job makes the same ones.
 */
export async function decodeLogJob(jobId: string, data: LogJobData | LegacyJobData): Promise<LogSegment[]> {
  if ('segments' in data) return data.segments;
  return buildSegments(await legacyEntries(data), (index) => derivedSegmentId(`${jobId}/${index}`));
}

async function legacyEntries(data: LegacyJobData): Promise<RequestLogEntry[]> {
  if ('entries' in data) {
    // v1 entries may carry an `id` of the old API's making; ids are the segments' now.
    return data.entries.map(({ id: _old, ...e }: (typeof data.entries)[number] & { id?: unknown }) => ({
      ...e,
      createdAt: typeof e.createdAt === 'number' ? e.createdAt : Date.parse(e.createdAt),
    }));
  }
  const rows = JSON.parse((await inflate(Buffer.from(data.z, 'base64'))).toString('utf8')) as LegacyRow[];
  return rows.map(([projectId, requestId, method, path, status, durationMs, apiKeyId, accountId, ip, userAgent, createdAt]) => ({
    projectId,
    requestId,
    method,
    path,
    status,
    durationMs,
    apiKeyId,
    accountId,
    ip,
    userAgent,
    createdAt,
  }));
}
