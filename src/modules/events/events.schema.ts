import { z } from 'zod';
import { pathId } from '../../shared/schemas.js';

/** The query of `GET /v1/{projectId}/events/stream`, and the input of `events.subscribe` (docs/realtime.md#the-stream). */
export const eventStreamInput = z.object({
  projectId: pathId('Project id'),
  types: z.string().max(2000).optional().describe('Comma-separated event types (those webhooks subscribe to); default: every type'),
  tableIds: z.string().max(20_000).optional().describe('Comma-separated table ids or keys: contents events of these tables only'),
  lastEventId: z
    .string()
    .max(200)
    .nullish()
    .describe('Resume right after this event id (REST clients may send the Last-Event-ID header instead)'),
});
export type EventStreamInput = z.infer<typeof eventStreamInput>;
