import { createApiKeyInput } from '../../modules/api-keys/api-key.schema.js';
import { createApiKey } from '../../modules/api-keys/api-key.service.js';
import { findProject } from '../../modules/projects/project.service.js';
import { defineCommand, list, parseInput, printJson, required } from '../command.js';
import { withOrm } from '../database.js';

const FLAGS = { projectId: '--project', name: '--name', permission: '--permission', allowedHosts: '--allowed-hosts', expiresAt: '--expires-at' };

export const keyCreate = defineCommand({
  name: 'key create',
  summary: 'Create an API key for a project (the key is printed once)',
  usage: `Usage: npm run cli -- key create --project <projectId> --name <name> --permission read|read_write
                              [--allowed-hosts a.example.com,*.example.com] [--expires-at <ISO date>]

Creates an API key of the project. read: GET only, published contents only; read_write: every
data write. Prints the key as JSON; its "key" field (tak_...) is the secret, shown only now.`,
  options: {
    project: { type: 'string' },
    name: { type: 'string' },
    permission: { type: 'string' },
    'allowed-hosts': { type: 'string' },
    'expires-at': { type: 'string' },
  },
  async run(values, ctx, usage) {
    const input = parseInput(
      createApiKeyInput,
      {
        projectId: required(values.project, '--project', usage),
        name: required(values.name, '--name', usage),
        permission: required(values.permission, '--permission', usage),
        allowedHosts: list(values['allowed-hosts']),
        expiresAt: values['expires-at'],
      },
      FLAGS,
      usage,
    );
    const created = await withOrm(ctx.config(), async (em) => createApiKey(em, (await findProject(em, input.projectId)).id, input));
    printJson(created);
  },
});
