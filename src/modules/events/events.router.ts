import { tracked } from '@trpc/server';
import { openAccessStream } from '../../auth/stream-access.js';
import { projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import type { StreamReset } from './stream/envelope.js';
import { eventStreamInput } from './events.schema.js';
import { endingOf, type OpenedStream } from './stream/open-stream.js';

/**
 * docs/realtime.md#typed-client: the project's events over SSE (`httpSubscriptionLink`), each
 * tracked by its id, so that a client that reconnects resumes right after the last one it got.
 * The same stream as `GET /v1/{projectId}/events/stream` (http/event-stream-route.ts).
 *
 * The resolver is a plain async function, not a generator: tRPC awaits it before it answers, so
 * the filter, the stream limit (429) and the join of the live feed are done when the client
 * hears `connected` (its `onStarted`), and every event written after that reaches the stream.
 * An error before it reaches the client as the subscription's error (docs/reliability.md#errors, under
 * `data.error`).
 */
export const eventsRouter = router({
  subscribe: projectProcedure('read')
    .input(eventStreamInput)
    .subscription(async ({ ctx, input, signal }) => {
      const stream = await openAccessStream(ctx.deps, ctx.access, ctx.req.headers, input, signal ?? new AbortController().signal);
      return trackedItems(stream);
    }),
});

/** The stream's items as the subscription yields them; ends with the error that ended the stream, if any. */
async function* trackedItems({ grant, batches, close }: OpenedStream) {
  try {
    for await (const batch of batches) {
      for (const item of batch) {
        if (item.kind === 'reset') yield { type: 'reset' } as StreamReset;
        else yield tracked(item.entry.id, item.entry.envelope(item.lens));
      }
      grant.sent(batch.length);
    }
  } finally {
    await close();
  }
  const ending = endingOf(grant);
  if (ending) throw ending;
}
