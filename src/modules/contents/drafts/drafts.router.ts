import { z } from 'zod';
import { markNoContent } from '../../../trpc/context.js';
import { router } from '../../../trpc/trpc.js';
import { answerWrite, rowWriteProcedure, rowWriteScope } from '../rows/row-writes.router.js';
import { contentsOutput, contentsPath, ifVersion } from '../rows/rows.schema.js';
import { updateContents } from '../rows/write.js';
import { discardDraftOf } from './drafts.js';

const TAG = 'Contents';
const draft = '/{projectId}/tables/{tableId}/contents/{contentsId}/draft' as const;
const rowPath = z.object({ ...contentsPath, ifVersion });

/** The pending draft of a published row, saved by PUT with `"draft": true` (docs/contents.md#drafts-of-published-rows). */
export const draftsRouter = router({
  publish: rowWriteProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: `${draft}/publish`,
        tags: [TAG],
        summary: 'Publish the pending draft',
        description:
          'The draft’s changes are merged into the live row, which is (re)published: validated and unique-checked now (422, 409), publishedAt set, a `draftPublished` revision recorded, `contents.updated` and `contents.published` fired. 404 when the row has no draft; 409 INVALID_TRANSITION when the row cannot be published (ARCHIVED). With `If-Match` or `ifVersion`: only if the row is still at that version (412 otherwise).',
        protect: true,
      },
      etag: 'write',
    })
    .input(rowPath)
    .output(contentsOutput)
    .mutation(async ({ ctx, input }) => {
      const row = await updateContents(rowWriteScope(ctx, input), input, { kind: 'draft' });
      return answerWrite(ctx, row);
    }),

  discard: rowWriteProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: draft,
        tags: [TAG],
        summary: 'Discard the pending draft',
        description: 'The live row stays as it is. 404 when the row has no draft. With `If-Match` or `ifVersion`: only if the row is still at that version (412 otherwise).',
        protect: true,
      },
      successStatus: 204,
      etag: 'write',
    })
    .input(rowPath)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await discardDraftOf(rowWriteScope(ctx, input), input.contentsId);
      markNoContent(ctx);
    }),
});
