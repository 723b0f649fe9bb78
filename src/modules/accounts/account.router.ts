import { z } from 'zod';
import { router } from '../../trpc/trpc.js';
import { accountProcedure } from '../../trpc/procedures.js';
import { accountOutput, updateAccountInput } from './account.schema.js';
import { getAccount, toAccountOutput, updateAccount } from './account.service.js';

const TAG = 'Accounts';

export const accountRouter = router({
  me: accountProcedure
    .meta({ openapi: { method: 'GET', path: '/accounts/me', tags: [TAG], summary: 'Read the current account', protect: true } })
    .input(z.object({}))
    .output(accountOutput)
    .query(async ({ ctx }) => toAccountOutput(await getAccount(ctx.em, ctx.principal.accountId))),

  updateMe: accountProcedure
    .meta({ openapi: { method: 'PUT', path: '/accounts/me', tags: [TAG], summary: 'Update the current account', protect: true } })
    .input(updateAccountInput)
    .output(accountOutput)
    .mutation(async ({ ctx, input }) => toAccountOutput(await updateAccount(ctx.em, ctx.principal.accountId, input))),
});
