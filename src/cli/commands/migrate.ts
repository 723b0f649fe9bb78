import { defineCommand } from '../command.js';
import { withOrm } from '../database.js';

export const migrate = defineCommand({
  name: 'migrate',
  summary: 'Apply pending database migrations',
  usage: `Usage: npm run cli -- migrate

Applies every pending migration (the API and workers also do this at start-up).`,
  options: {},
  async run(_values, ctx) {
    // Opening the ORM migrates, under the same advisory lock as the servers.
    await withOrm(ctx.config(), async () => {});
    process.stdout.write('migrations applied\n');
  },
});
