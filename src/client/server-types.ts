/**
 * The only door from the client to the server: types, never values. The published package
 * (client/build.mjs) replaces this module with the declarations these names resolve to, with the
 * server's context and OpenAPI meta erased, so that nothing of the server ships with the client.
 */
export type { AppRouter } from '../trpc/router.js';
export type { ErrorCode, ErrorDetail } from '../errors/app-error.js';
export type { EventEnvelope, StreamReset } from '../modules/events/feed-entry.js';
export type { EventType } from '../jobs/outbox.js';
export type { OperatorsByKind } from '../modules/query/operators.js';
