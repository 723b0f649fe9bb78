import { send, sendWithProgress, type FileTransport } from './files.js';

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
  const request = { method: 'POST' as const, url, body, headers: { ...options.headers, 'content-type': MEDIA[options.format] } };
  return sendWithProgress<{ imported: number }>(transport, request, () => body.size, options.onProgress);
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
  const response = await send(transport, ioUrl(transport, projectId, tableId, 'export', params), { headers });
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
