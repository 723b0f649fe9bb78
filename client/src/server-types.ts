/**
 * The only door from the client to the server: types, never values. The published package
 * (client/build.mjs) replaces this module with the declarations these names resolve to, with the
 * server's context and OpenAPI meta erased, so that nothing of the server ships with the client.
 */
export type { AppRouter } from '../../src/trpc/router.js';
export type { ErrorCode, ErrorDetail } from '../../src/errors/app-error.js';
export type { EventEnvelope, StreamReset } from '../../src/modules/events/stream/envelope.js';
export type { EventType } from '../../src/modules/events/vocabulary.js';
export type { OperatorsByKind } from '../../src/modules/query/operators.js';
