import { z } from 'zod';
import { markNoContent } from '../../../trpc/context.js';
import { router } from '../../../trpc/trpc.js';
import { rowWriteProcedure, writtenRow } from '../rows/row-writes.router.js';
import { contentsOutput, contentsPath } from '../rows/rows.schema.js';
import { updateContents } from '../rows/write.js';
import { discardDraftOf } from './drafts.js';

const TAG = 'Contents';
const draft = '/{projectId}/tables/{tableId}/contents/{contentsId}/draft' as const;
const rowPath = z.object(contentsPath);

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
          'The draft’s changes are merged into the live row, which is (re)published: validated and unique-checked now (422, 409), publishedAt set, a `draftPublished` revision recorded, `contents.updated` and `contents.published` fired. 404 when the row has no draft; 409 INVALID_TRANSITION when the row cannot be published (ARCHIVED).',
        protect: true,
      },
    })
    .input(rowPath)
    .output(contentsOutput)
    .mutation(async ({ ctx, input }) => {
      const row = await updateContents(ctx.tableAccess.writeScope(), input, { kind: 'draft' });
      return writtenRow(ctx.tableAccess, row);
    }),

  discard: rowWriteProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: draft,
        tags: [TAG],
        summary: 'Discard the pending draft',
        description: 'The live row stays as it is. 404 when the row has no draft.',
        protect: true,
      },
      successStatus: 204,
    })
    .input(rowPath)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await discardDraftOf(ctx.tableAccess.writeScope(), input.contentsId);
      markNoContent(ctx);
    }),
});
