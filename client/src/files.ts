import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter, ErrorCode, ErrorDetail } from './server-types.js';

/**
 * File bytes travel as multipart uploads and binary downloads, which tRPC does not carry: these
 * two calls use the REST face (`POST /v1/{projectId}/files`, `GET .../files/{id}/content`,
 * docs/resources.md#files) with the same credential and answer the same typed file records and errors as the
 * procedures.
 */
export type FileRecord = inferRouterOutputs<AppRouter>['files']['get'];

export interface FileTransport {
  baseUrl: string;
  token: string;
  fetch?: typeof globalThis.fetch;
}

/** Derived image parameters (docs/resources.md#image-transformations), e.g. `{ w: 400, format: 'webp' }`. */
export type ImageParams = Partial<Record<'w' | 'h' | 'fit' | 'format' | 'q', string | number>>;

/** A failed file call: the error of the REST answer (docs/reliability.md#errors). */
export class FileCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'NETWORK_ERROR',
    message: string,
    readonly details: ErrorDetail[] | null,
  ) {
    super(message);
    this.name = 'FileCallError';
  }
}

const base = (transport: FileTransport, path: string) => `${transport.baseUrl.replace(/\/+$/, '')}/v1/${path}`;

async function send(transport: FileTransport, url: string, init: RequestInit): Promise<Response> {
  const headers = { ...(init.headers as Record<string, string>), authorization: `Bearer ${transport.token}` };
  let response: Response;
  try {
    response = await (transport.fetch ?? globalThis.fetch)(url, { ...init, headers });
  } catch (error) {
    throw new FileCallError(0, 'NETWORK_ERROR', error instanceof Error ? error.message : String(error), null);
  }
  if (response.ok) return response;
  const body = (await response.json().catch(() => null)) as { error?: { code: ErrorCode; message: string; details: ErrorDetail[] | null } } | null;
  if (!body?.error) throw new FileCallError(response.status, 'NETWORK_ERROR', `HTTP ${response.status}`, null);
  throw new FileCallError(response.status, body.error.code, body.error.message, body.error.details);
}

/** Uploads one file (a Blob or File; `name` defaults to the File's own name). */
export async function uploadFile(transport: FileTransport, projectId: string, file: Blob, name?: string): Promise<FileRecord> {
  const form = new FormData();
  form.append('file', file, name ?? (file as File).name ?? 'file');
  const response = await send(transport, base(transport, `${encodeURIComponent(projectId)}/files`), { method: 'POST', body: form });
  return (await response.json()) as FileRecord;
}

/** A file's bytes, or an image derived from it when `image` is given. */
export async function fileContent(transport: FileTransport, projectId: string, fileId: string, image?: ImageParams): Promise<Blob> {
  const query = image ? `?${new URLSearchParams(Object.entries(image).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
  const response = await send(transport, base(transport, `${encodeURIComponent(projectId)}/files/${encodeURIComponent(fileId)}/content${query}`), { method: 'GET' });
  return response.blob();
}
