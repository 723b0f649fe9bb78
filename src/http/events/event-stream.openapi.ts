import { EVENT_TYPES } from '../../modules/events/vocabulary.js';

/*
 * The OpenAPI face of the realtime stream (event-stream-route.ts), which the generator cannot
 * see: trpc-to-openapi has no subscriptions.
 */

const query = (name: string, description: string, example?: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string' },
  ...(example ? { example } : {}),
});

const STREAM_DESCRIPTION = [
  'The project’s events as they are committed, as Server-Sent Events. Each event is',
  '`id: <event id>`, `event: <type>` and `data: <the webhook body>` (`{ id, type, projectId, createdAt, sequence, data }`, see Webhooks).',
  'A comment line (`: ping`) comes every 15 s (REALTIME_HEARTBEAT_MS).',
  '',
  'Resuming: send the id of the last event received as `Last-Event-ID` (EventSource does this by itself) or `lastEventId`:',
  'the stream replays what came after it, then goes on live, with nothing lost or repeated. When that event is no longer',
  'retained (kept: at least 24 h and at least the last 10,000 events of the project), the stream starts with `event: reset` and goes on live.',
  '',
  'Read keys receive events of PUBLISHED rows only (without `hasDraft`); a row leaving PUBLISHED reaches them as',
  '`contents.unpublished` with only `{ id, tableId }`. A browser’s EventSource cannot send headers: it may pass the key as',
  '`access_token` in the query instead (it never appears in request logs; allowed hosts apply through `Origin`).',
  '',
  'Errors before the stream starts are JSON (401, 403, 404, 400, 429 beyond REALTIME_MAX_STREAMS open streams of the credential).',
  'Each parameter is given once, plainly and not empty, as on lists: a repeated, array-shaped (`types[]`) or empty one is 400 INVALID_QUERY.',
  'When the server ends a stream it says why in an `event: error` whose data is the error body: its credential was deleted,',
  'deactivated, expired or rotated out (within REALTIME_RECHECK_MS), or 503 when the server stops (reconnect and resume).',
  'TypeScript clients get the same stream typed from the tRPC subscription `events.subscribe`.',
].join('\n');

export const streamOperation = {
  operationId: 'events-stream',
  tags: ['Events'],
  summary: 'Stream the project’s events (text/event-stream)',
  description: STREAM_DESCRIPTION,
  security: [{ bearerAuth: [] }],
  parameters: [
    { name: 'projectId', in: 'path', required: true, description: 'Project id', schema: { type: 'string' } },
    query('types', `Comma-separated event types (default: all): ${EVENT_TYPES.join(', ')}`, 'contents.published,contents.unpublished'),
    query('tableIds', 'Comma-separated table ids or keys: contents events of these tables only'),
    query('lastEventId', 'Resume right after this event (the `Last-Event-ID` header does the same)'),
    query('access_token', 'The credential, for clients that cannot send `Authorization` (a browser’s EventSource)'),
    { name: 'Last-Event-ID', in: 'header', required: false, description: 'The id of the last event received: resume after it', schema: { type: 'string' } },
  ],
  responses: {
    '200': {
      description: 'The stream; it stays open until the client leaves, the credential is revoked or the server stops',
      content: {
        'text/event-stream': {
          schema: { type: 'string' },
          example:
            ': connected\n\nid: 0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a\nevent: contents.published\ndata: {"id":"0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a","type":"contents.published","projectId":"…","createdAt":"2026-11-26T10:00:00.000Z","sequence":42,"data":{"id":"…","status":"PUBLISHED","data":{"title":"Hello"}}}\n\n',
        },
      },
    },
  },
};
