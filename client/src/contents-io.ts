import { FileCallError, type FileTransport } from './files.js';
import type { ErrorCode, ErrorDetail } from './server-types.js';

/**
 * A table's rows in bulk (docs/import-export.md): the import's body and the export's answer are
 * streams, which tRPC does not carry, so these two calls use the REST face
 * (`POST /v1/{projectId}/tables/{tableId}/contents/import`, `GET .../contents/export`) with the
 * same credential and transport as the file calls, and fail with the same FileCallError (a 422
 * names the offending lines in its `details`: `line 3: data.price`).
 */
export type ContentsFormat = 'csv' | 'ndjson';

const MEDIA: Record<ContentsFormat, string> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };

const ioUrl = (transport: FileTransport, projectId: string, tableId: string, action: 'import' | 'export', query: URLSearchParams) =>
  `${transport.baseUrl.replace(/\/+$/, '')}/v1/${encodeURIComponent(projectId)}/tables/${encodeURIComponent(tableId)}/contents/${action}${query.size > 0 ? `?${query}` : ''}`;

function callError(status: number, text: string): FileCallError {
  type ErrorBody = { error?: { code: ErrorCode; message: string; details: ErrorDetail[] | null } } | null;
  let body: ErrorBody = null;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // Not JSON: said by the status alone.
  }
  if (!body?.error) return new FileCallError(status, 'NETWORK_ERROR', `HTTP ${status}`, null);
  return new FileCallError(status, body.error.code, body.error.message, body.error.details);
}

interface XhrLike {
  upload: { onprogress: ((event: { loaded: number; total: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  status: number;
  responseText: string;
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob): void;
}

export interface ImportOptions {
  format: ContentsFormat;
  /** `upsert`: rows matched by id or slug are updated, the others created. Default `create`. */
  mode?: 'create' | 'upsert';
  /** Bytes of the body sent so far (in browsers, as they go; elsewhere once at the end). */
  onProgress?: (loaded: number, total: number) => void;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** Imports a CSV or NDJSON body into a table, all or nothing: `{ imported }` rows. */
export async function importContents(transport: FileTransport, projectId: string, tableId: string, body: Blob, options: ImportOptions): Promise<{ imported: number }> {
  const url = ioUrl(transport, projectId, tableId, 'import', new URLSearchParams(options.mode ? { mode: options.mode } : {}));
  const headers: Record<string, string> = { ...transport.headers, ...options.headers, 'content-type': MEDIA[options.format], authorization: `Bearer ${transport.token}` };
  const Xhr = (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;
  let status: number;
  let text: string;
  if (!options.onProgress || !Xhr || transport.fetch) {
    // fetch tells nothing of an upload's progress: one report at the end.
    let response: Response;
    try {
      response = await (transport.fetch ?? globalThis.fetch)(url, { method: 'POST', headers, body });
    } catch (error) {
      throw new FileCallError(0, 'NETWORK_ERROR', error instanceof Error ? error.message : String(error), null);
    }
    status = response.status;
    text = await response.text();
    options.onProgress?.(body.size, body.size);
  } else {
    ({ status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const xhr = new Xhr();
      xhr.open('POST', url);
      for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => options.onProgress!(event.loaded, event.total);
      xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
      xhr.onerror = () => reject(new FileCallError(0, 'NETWORK_ERROR', 'The import failed (network error)', null));
      xhr.send(body);
    }));
  }
  if (status >= 200 && status < 300) return JSON.parse(text) as { imported: number };
  throw callError(status, text);
}

/** The list parameters an export takes (docs/contents.md#list-queries), as their query-string text. */
export interface ExportQuery {
  format: ContentsFormat;
  filter?: string;
  op?: 'and' | 'or';
  search?: string;
  sort?: string;
  fields?: string;
  locale?: string;
  escapeFormulas?: boolean;
}

/** How far an export has come: bytes and lines (rows, plus a CSV's header) received. */
export type ExportProgress = (received: { bytes: number; lines: number }) => void;

/**
 * Every row the list with the same parameters returns, as one Blob; `onProgress` is told as the
 * bytes arrive (the export is streamed, its length unknown beforehand).
 */
export async function exportContents(
  transport: FileTransport,
  projectId: string,
  tableId: string,
  query: ExportQuery,
  onProgress?: ExportProgress,
  headers: Record<string, string> = {},
): Promise<Blob> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  let response: Response;
  try {
    response = await (transport.fetch ?? globalThis.fetch)(ioUrl(transport, projectId, tableId, 'export', params), { headers: { ...transport.headers, ...headers, authorization: `Bearer ${transport.token}` } });
  } catch (error) {
    throw new FileCallError(0, 'NETWORK_ERROR', error instanceof Error ? error.message : String(error), null);
  }
  if (!response.ok) throw callError(response.status, await response.text());
  const type = response.headers.get('content-type') ?? MEDIA[query.format];
  if (!response.body) return new Blob([await response.arrayBuffer()], { type });
  const parts: Uint8Array[] = [];
  let bytes = 0;
  let lines = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    bytes += value.length;
    // Every line ends in a newline byte (0x0a); a newline inside a quoted CSV cell counts too,
    // which makes this a progress figure, not a row count.
    for (const byte of value) if (byte === 10) lines++;
    onProgress?.({ bytes, lines });
  }
  return new Blob(parts as unknown as ConstructorParameters<typeof Blob>[0], { type });
}
