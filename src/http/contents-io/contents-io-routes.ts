import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { Request } from 'express';
import type { AppDeps } from '../../app-deps.js';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../../errors/app-error.js';
import { csvLines, importContents, ndjsonLines, prepareExport, type ExportFormat } from '../../modules/contents/index.js';
import type { PlainRoute } from '../plain-route.js';
import { exportOperation, importOperation } from './contents-io.openapi.js';
import { readQueryOrThrow, type QueryShape } from '../v1-query.js';

const NDJSON = /^application\/(x-ndjson|jsonl|x-jsonlines)\s*(;|$)/i;
const CSV = /^text\/csv\s*(;|$)/i;

/*
 * The query parameters of each route, read as list routes read theirs (v1-query.ts): each given
 * once, not empty, `escapeFormulas` true or false, else 400 INVALID_QUERY.
 */
const IMPORT_QUERY: QueryShape = new Map([['mode', 'text']]);
const EXPORT_LIST_PARAMS = ['fields', 'sort', 'filter', 'op', 'locale', 'search'] as const;
const EXPORT_QUERY: QueryShape = new Map([['format', 'text'], ['escapeFormulas', 'boolean'], ...EXPORT_LIST_PARAMS.map((name) => [name, 'text'] as const)]);

/** The route's parameters, or the 400 that refuses them. */
const queryOf = (req: Request, shape: QueryShape) => readQueryOrThrow(req.query as Record<string, unknown>, shape);

/** The body as text, refused (413) past `max` bytes and (400) when it is not UTF-8. */
async function* bodyText(req: Readable, max: number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  try {
    for await (const chunk of req) {
      bytes += (chunk as Buffer).length;
      if (bytes > max) throw payloadTooLarge(`The import is larger than IMPORT_MAX_BYTES (${max} bytes)`);
      yield decoder.decode(chunk as Buffer, { stream: true });
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if (error instanceof TypeError) throw badRequest('The body is not UTF-8 text');
    throw error;
  }
}

/** Resolves when `res` can take more data ('drain') or will never (closed, also before this call). */
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  // A client that left while the next chunk was read has closed `res` already: no event is to come.
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * The plain routes of contents import and export (docs/import-export.md): their bodies stream,
 * which procedures cannot. Credential (401), project access (403/404), the table (404), then the
 * input (400/413/415/422). Mounted before the procedures (`.../contents/export` would otherwise
 * read as the row whose id is "export").
 */
export function contentsIoRoutes(deps: AppDeps): PlainRoute[] {
  const importRoute: PlainRoute = {
    method: 'post',
    path: '/{projectId}/tables/{tableId}/contents/import',
    access: 'write',
    openapi: { operation: importOperation },
    async handle(req, res, { access, committed }) {
      const tableAccess = await access.table(String(req.params.tableId), 'write');
      const type = req.headers['content-type'] ?? '';
      if (!NDJSON.test(type) && !CSV.test(type)) throw unsupportedMediaType('Content-Type must be application/x-ndjson or text/csv');
      const mode = queryOf(req, IMPORT_QUERY).mode ?? 'create';
      if (mode !== 'create' && mode !== 'upsert') throw badRequest('mode: must be create or upsert');
      const text = bodyText(req, deps.config.IMPORT_MAX_BYTES);
      const lines = CSV.test(type) ? csvLines(text, tableAccess.definition, access.project) : ndjsonLines(text);
      const result = await importContents(tableAccess.writeScope(), lines, { upsert: mode === 'upsert' });
      await committed();
      res.status(200).json(result);
    },
  };

  const exportRoute: PlainRoute = {
    method: 'get',
    path: '/{projectId}/tables/{tableId}/contents/export',
    access: 'read',
    replica: true,
    openapi: { operation: exportOperation },
    async handle(req, res, { access }) {
      const tableAccess = await access.table(String(req.params.tableId));
      const { table } = tableAccess;
      const query = queryOf(req, EXPORT_QUERY);
      const format = (query.format ?? 'ndjson') as ExportFormat;
      if (format !== 'ndjson' && format !== 'csv') throw badRequest('format: must be ndjson or csv');
      const input = {
        projectId: access.project.id,
        tableId: table.id,
        ...Object.fromEntries(EXPORT_LIST_PARAMS.flatMap((name) => (query[name] === undefined ? [] : [[name, query[name] as string]]))),
      };
      const chunks = await prepareExport(tableAccess.exportScope(), input, { format, escapeFormulas: query.escapeFormulas !== false });
      res.writeHead(200, {
        'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        'content-disposition': `attachment; filename="${table.key}.${format}"`,
        'cache-control': 'no-store',
      });
      for await (const chunk of chunks()) {
        if (res.destroyed) return;
        // Backpressure: wait until the socket takes more, or the client is gone (no 'drain' then).
        if (!res.write(chunk.data)) await drainedOrClosed(res);
        if (res.destroyed) return;
      }
      res.end();
    },
  };
  return [importRoute, exportRoute];
}
