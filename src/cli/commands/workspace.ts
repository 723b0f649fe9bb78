import { findOrCreateAccount } from '../../modules/accounts/account.service.js';
import { createWorkspaceInput } from '../../modules/workspaces/workspace.schema.js';
import { createWorkspace, toWorkspaceOutput } from '../../modules/workspaces/workspace.service.js';
import { emailString } from '../../shared/schemas.js';
import { defineCommand, parseInput, printJson, required } from '../command.js';
import { withOrm } from '../database.js';

export const workspaceCreate = defineCommand({
  name: 'workspace create',
  summary: 'Create a workspace owned by an account (created if needed)',
  usage: `Usage: npm run cli -- workspace create --name <name> --owner-email <email>

Creates a workspace whose OWNER is the account with that e-mail; the account is created when it
does not exist (give it a token with: npm run cli -- token create --email <email>).
Prints the workspace as JSON: { id, name, role, createdAt, updatedAt, owner }.`,
  options: { name: { type: 'string' }, 'owner-email': { type: 'string' } },
  async run(values, ctx, usage) {
    const { name } = parseInput(createWorkspaceInput, { name: required(values.name, '--name', usage) }, { name: '--name' }, usage);
    const email = parseInput(emailString, required(values['owner-email'], '--owner-email', usage), { '': '--owner-email' }, usage);
    const result = await withOrm(ctx.config(), (em) =>
      em.transactional(async (tx) => {
        const { account, created } = await findOrCreateAccount(tx, email);
        // The membership row refers to the account by id: a new account must exist first.
        await tx.flush();
        const workspace = await createWorkspace(tx, account.id, name);
        return { ...toWorkspaceOutput(workspace, 'OWNER'), owner: { accountId: account.id, email: account.email, created } };
      }),
    );
    printJson(result);
    if (result.owner.created) process.stderr.write(`New account ${result.owner.email}; its token: npm run cli -- token create --email ${result.owner.email}\n`);
  },
});
