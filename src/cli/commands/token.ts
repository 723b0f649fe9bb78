import { createTokenForEmail } from '../../modules/accounts/account.service.js';
import { emailString } from '../../shared/schemas.js';
import { defineCommand, parseInput, required } from '../command.js';
import { withOrm } from '../database.js';

export const tokenCreate = defineCommand({
  name: 'token create',
  summary: 'Print a new account token (creates the account if needed)',
  usage: `Usage: npm run cli -- token create --email <email>

Prints a new account token (tat_...) for the account with that e-mail, creating the account
when it does not exist. The token is shown once; only its SHA-256 is stored.`,
  options: { email: { type: 'string' } },
  async run(values, ctx, usage) {
    const email = parseInput(emailString, required(values.email, '--email', usage), { '': '--email' }, usage);
    const { token } = await withOrm(ctx.config(), (em) => createTokenForEmail(em, email));
    process.stdout.write(`${token}\n`);
  },
});
