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
  /** Extra headers on every request (the admin console's `Tabula-Client: console`). */
  headers?: Record<string, string>;
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

/** An error answer as a FileCallError: its `{ error }` body, or (not one) its status alone. */
type ErrorBody = { error?: { code: ErrorCode; message: string; details: ErrorDetail[] | null } } | null;

function callError(status: number, text: string): FileCallError {
  let body: ErrorBody = null;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // Not JSON: said by the status alone.
  }
  if (!body?.error) return new FileCallError(status, 'NETWORK_ERROR', `HTTP ${status}`, null);
  return new FileCallError(status, body.error.code, body.error.message, body.error.details);
}

function networkError(error: unknown): FileCallError {
  return new FileCallError(0, 'NETWORK_ERROR', error instanceof Error ? error.message : String(error), null);
}

/** A request with the transport's credential and headers; an error answer throws. */
export async function send(transport: FileTransport, url: string, init: RequestInit): Promise<Response> {
  const headers = { ...transport.headers, ...(init.headers as Record<string, string>), authorization: `Bearer ${transport.token}` };
  const response = await (transport.fetch ?? globalThis.fetch)(url, { ...init, headers }).catch((error: unknown) => {
    throw networkError(error);
  });
  if (response.ok) return response;
  throw callError(response.status, await response.text());
}

/** How far an upload's bytes have gone: `loaded` of `total` bytes of the request body sent. */
export type UploadProgress = (loaded: number, total: number) => void;

interface XhrLike {
  upload: { onprogress: ((event: { loaded: number; total: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  status: number;
  responseText: string;
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob | FormData): void;
}

/**
 * A request body whose progress is reported, answered with the parsed success body (an error
 * answer throws): fetch tells nothing of an upload's progress, so where the platform has
 * XMLHttpRequest (browsers) the body goes through it; elsewhere through fetch, with one report
 * of `size` bytes at the end.
 */
export async function sendWithProgress<T>(
  transport: FileTransport,
  request: { method: 'POST' | 'PUT'; url: string; body: Blob | FormData; headers?: Record<string, string> },
  size: (answer: T) => number,
  onProgress?: UploadProgress,
): Promise<T> {
  const headers = { ...transport.headers, ...request.headers, authorization: `Bearer ${transport.token}` };
  const Xhr = (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;
  if (!onProgress || !Xhr || transport.fetch) {
    const answer = (await (await send(transport, request.url, { method: request.method, headers: request.headers, body: request.body })).json()) as T;
    onProgress?.(size(answer), size(answer));
    return answer;
  }
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const xhr = new Xhr();
    xhr.open(request.method, request.url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.total);
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new FileCallError(0, 'NETWORK_ERROR', 'The upload failed (network error)', null));
    xhr.send(request.body);
  });
  if (status >= 200 && status < 300) return JSON.parse(text) as T;
  throw callError(status, text);
}

/**
 * Uploads one file (a Blob or File; `name` defaults to the File's own name). `onProgress` is
 * told how many bytes have gone as they go (in browsers).
 */
export async function uploadFile(transport: FileTransport, projectId: string, file: Blob, name?: string, onProgress?: UploadProgress): Promise<FileRecord> {
  const form = new FormData();
  form.append('file', file, name ?? (file as File).name ?? 'file');
  return sendWithProgress<FileRecord>(transport, { method: 'POST', url: base(transport, `${encodeURIComponent(projectId)}/files`), body: form }, (record) => record.size, onProgress);
}

/** Replaces a file's bytes (same id; `name` renames it too), with progress as for uploadFile. */
export async function replaceFile(transport: FileTransport, projectId: string, fileId: string, file: Blob, name?: string, onProgress?: UploadProgress): Promise<FileRecord> {
  const form = new FormData();
  form.append('file', file, (file as File).name ?? 'file');
  if (name !== undefined) form.append('name', name);
  return sendWithProgress<FileRecord>(transport, { method: 'PUT', url: base(transport, `${encodeURIComponent(projectId)}/files/${encodeURIComponent(fileId)}`), body: form }, (record) => record.size, onProgress);
}

/** A file's bytes, or an image derived from it when `image` is given. */
export async function fileContent(transport: FileTransport, projectId: string, fileId: string, image?: ImageParams): Promise<Blob> {
  const query = image ? `?${new URLSearchParams(Object.entries(image).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
  const response = await send(transport, base(transport, `${encodeURIComponent(projectId)}/files/${encodeURIComponent(fileId)}/content${query}`), { method: 'GET' });
  return response.blob();
}
