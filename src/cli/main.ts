import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { openMigratedOrm } from '../db/migrate.js';
import { createTokenForEmail } from '../modules/accounts/account.service.js';
import { runMain } from '../process.js';
import { withDatabase } from './database.js';

const HELP: Record<string, string> = {
  '': `Usage: npm run cli -- <command> [options]

Commands:
  token create --email <email>   Print a new account token (creates the account if needed)
  migrate                        Apply pending database migrations

Without DATABASE_URL the commands use the embedded database in ./.data/pg.
Run any command with --help for its options.`,
  'token create': `Usage: npm run cli -- token create --email <email>

Prints a new account token (tat_...) for the account with that e-mail, creating the account
when it does not exist. The token is shown once; only its SHA-256 is stored.`,
  migrate: `Usage: npm run cli -- migrate

Applies every pending migration (the API and workers also do this at start-up).`,
};

await runMain(async () => {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { email: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  const command = positionals.join(' ');
  if (values.help || command === '' || command === 'help') {
    process.stdout.write(`${HELP[command] ?? HELP['']}\n`);
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'token create': {
      if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email)) throw new Error('token create needs --email <email>');
      const email = values.email;
      const token = await withDatabase(config, async (url) => {
        const orm = await openMigratedOrm(url, { poolMax: 1 });
        try {
          return (await createTokenForEmail(orm.em.fork(), email)).token;
        } finally {
          await orm.close(true);
        }
      });
      process.stdout.write(`${token}\n`);
      return;
    }
    case 'migrate': {
      await withDatabase(config, async (url) => (await openMigratedOrm(url, { poolMax: 1 })).close(true));
      process.stdout.write('migrations applied\n');
      return;
    }
    default:
      throw new Error(`Unknown command "${command}". Run npm run cli -- --help`);
  }
});
