import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import { fileRules } from '../../auth/file-rules.js';
import { markNoContent } from '../../trpc/context.js';
import { projectItemProcedure, projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { fileIdInput, fileListOutput, fileOutput, fileUsedByOutput, listFilesInput, updateFileInput, USED_BY_MAX } from './file.schema.js';
import { deleteFile, toFileOutput, updateFile } from './file.service.js';

/*
 * Upload (POST multipart), replace (PUT multipart) and download (GET .../content) are plain
 * express routes: see src/http/files/file-routes.ts. Everything else about files is here. What a
 * custom role may do is its `$files` rules' to say (src/auth/file-rules.ts, docs/roles.md#files).
 */

const TAG = 'Files';
const collection = '/{projectId}/files' as const;
const item = '/{projectId}/files/{fileId}' as const;

/** `.../files/{fileId}`: the file must exist (404) and be the caller's to read or write (403/404) before the body is checked (400). */
const fileProcedure = (action: 'read' | 'update' | 'delete') =>
  projectItemProcedure(
    action === 'read' ? 'read' : 'write',
    (ctx, input) => {
      const rules = fileRules(ctx.access, ctx.em);
      const fileId = rawPathParam(input, 'fileId');
      return action === 'read' ? rules.read(fileId) : rules.address(fileId, action);
    },
    true,
  );

export const fileRouter = router({
  list: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List files (filter: mimeType)', protect: true } , httpCache: 'files' })
    .input(listFilesInput)
    .output(fileListOutput)
    .query(({ ctx, input }) => fileRules(ctx.access, ctx.em).list(input)),

  get: fileProcedure('read')
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a file’s metadata', protect: true } , httpCache: 'files' })
    .input(fileIdInput)
    .output(fileOutput)
    .query(({ ctx }) => toFileOutput(ctx.item)),

  usedBy: fileProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: `${item}/used-by`,
        tags: [TAG],
        summary: 'The rows that hold a file (those the caller reads)',
        protect: true,
      },
    })
    .input(fileIdInput)
    .output(fileUsedByOutput)
    .query(async ({ ctx }) => {
      const rows = await fileRules(ctx.access, ctx.em).usedBy(ctx.item.id, USED_BY_MAX + 1);
      return { list: rows.slice(0, USED_BY_MAX), hasMore: rows.length > USED_BY_MAX };
    }),

  update: fileProcedure('update')
    .meta({
      openapi: {
        method: 'PUT',
        path: item,
        tags: [TAG],
        summary: 'Replace a file’s bytes (multipart/form-data: file, name?) or rename it (JSON: name)',
        protect: true,
      },
    })
    .input(updateFileInput)
    .output(fileOutput)
    .mutation(async ({ ctx, input }) => {
      const allow = fileRules(ctx.access, ctx.em).allow('update', ctx.item);
      await allow?.({ name: input.name ?? ctx.item.name, mimeType: ctx.item.mimeType, size: ctx.item.size });
      return toFileOutput(await updateFile(ctx.em, ctx.item, input));
    }),

  delete: fileProcedure('delete')
    .meta({
      openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a file (409 while contents reference it)', protect: true },
      successStatus: 204,
    })
    .input(fileIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      await deleteFile(ctx.em, ctx.deps.storage, ctx.deps.logger, ctx.access.project.id, ctx.item.id);
      markNoContent(ctx);
    }),
});
