import type { RequestHandler } from 'express';
import type { AppDeps } from '../../app-deps.js';
import { openAccessStream } from '../../auth/stream-access.js';
import { badRequest } from '../../errors/app-error.js';
import { describeError } from '../../errors/describe.js';
import type { StreamItem } from '../../modules/events/stream/stream-subscription.js';
import { eventStreamInput } from '../../modules/events/events.schema.js';
import { endingOf } from '../../modules/events/stream/open-stream.js';
import type { PlainRoute } from '../plain-route.js';
import { streamOperation } from './event-stream.openapi.js';
import { queryShapeOf, readQueryOrThrow } from '../v1-query.js';

/** The stream's query parameters, read as the list routes read theirs. */
const STREAM_QUERY = queryShapeOf(eventStreamInput.shape, ['projectId']);

/** The stream's path under `/v1`. */
const EVENT_STREAM_PATH = /^\/[^/]+\/events\/stream\/?$/;

/**
 * `?access_token=` for the stream only: a browser's EventSource cannot send an Authorization
 * header, so a (read) key may come in the query instead. It becomes the header, before the rate
 * limiter and the request log look, and leaves the URL, so that no log ever holds it.
 */
export const tokenFromQuery: RequestHandler = (req, _res, next) => {
  const [path, query] = req.url.split('?', 2);
  if (!query || !EVENT_STREAM_PATH.test(path)) return next();
  const params = new URLSearchParams(query);
  const token = params.get('access_token');
  if (token === null) return next();
  params.delete('access_token');
  if (!req.headers.authorization) req.headers.authorization = `Bearer ${token}`;
  const rest = params.size > 0 ? `?${params}` : '';
  req.url = `${path}${rest}`;
  req.originalUrl = `${req.originalUrl.split('?', 1)[0]}${rest}`;
  next();
};

/** One stream item in SSE framing: `id:` the event id, `event:` its type as the caller receives it, `data:` the envelope. */
const frame = (item: StreamItem): string =>
  item.kind === 'reset'
    ? 'event: reset\ndata: {}\n\n'
    : `id: ${item.entry.id}\nevent: ${item.entry.envelope(item.lens).type}\ndata: ${item.entry.serialized(item.lens)}\n\n`;


/**
 * `GET /v1/{projectId}/events/stream` (docs/realtime.md): the project's events as
 * `text/event-stream`, the same stream as the tRPC subscription `events.subscribe`
 * (modules/events). Errors before the stream starts are the usual JSON errors; a stream that the
 * server ends says why in an `event: error` (its credential was revoked, or 503: the server
 * stops, reconnect and resume).
 */
export function eventStreamRoute(deps: AppDeps): PlainRoute {
  return {
    method: 'get',
    path: '/{projectId}/events/stream',
    access: 'read',
    openapi: { operation: streamOperation },
    async handle(req, res, { access }) {
      // As on lists (v1-query.ts): each parameter once, plain, not empty; 400 INVALID_QUERY otherwise.
      const query = readQueryOrThrow(req.query as Record<string, unknown>, STREAM_QUERY);
      const parsed = eventStreamInput.safeParse({
        projectId: req.params.projectId,
        types: query.types,
        tableIds: query.tableIds,
        lastEventId: req.get('last-event-id') ?? query.lastEventId,
      });
      if (!parsed.success) throw badRequest(`Invalid request: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      const left = new AbortController();
      res.once('close', () => left.abort());
      // The stream has joined the feed when this resolves: the headers below tell the client it
      // started, and every event written from then on reaches it. Errors until here are JSON.
      const { grant, batches, close } = await openAccessStream(deps, access, req.headers, parsed.data, left.signal);
      let heartbeat: NodeJS.Timeout | undefined;
      try {
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          // Proxies (nginx) would otherwise buffer the stream.
          'x-accel-buffering': 'no',
        });
        res.write(': connected\n\n');
        heartbeat = setInterval(() => res.write(': ping\n\n'), deps.config.REALTIME_HEARTBEAT_MS);
        for await (const batch of batches) {
          res.write(batch.map(frame).join(''));
          grant.sent(batch.length);
        }
        const ending = endingOf(grant);
        if (ending) res.write(`event: error\ndata: ${JSON.stringify(describeError(ending).body)}\n\n`);
      } catch (error) {
        // After the headers, an error can only be told in the stream.
        res.write(`event: error\ndata: ${JSON.stringify(describeError(error).body)}\n\n`);
      } finally {
        clearInterval(heartbeat);
        await close();
        res.end();
      }
    },
  };
}
