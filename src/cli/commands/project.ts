import { createProjectInput } from '../../modules/projects/project.schema.js';
import { createProject, toProjectOutput } from '../../modules/projects/project.service.js';
import { findWorkspace } from '../../modules/workspaces/workspace.service.js';
import { defineCommand, list, parseInput, printJson, required } from '../command.js';
import { withOrm } from '../database.js';

const FLAGS = { workspaceId: '--workspace', name: '--name', locales: '--locales', defaultLocale: '--default-locale' };

export const projectCreate = defineCommand({
  name: 'project create',
  summary: 'Create a project in a workspace',
  usage: `Usage: npm run cli -- project create --workspace <workspaceId> --name <name> [--locales en,de] [--default-locale en]

Creates a project in the workspace. --locales is a comma-separated list of locale codes
(default: en); --default-locale must be one of them (default: the first).
Prints the project as JSON: { id, workspaceId, name, description, locales, defaultLocale, ... }.`,
  options: { workspace: { type: 'string' }, name: { type: 'string' }, locales: { type: 'string' }, 'default-locale': { type: 'string' } },
  async run(values, ctx, usage) {
    const input = parseInput(
      createProjectInput,
      {
        workspaceId: required(values.workspace, '--workspace', usage),
        name: required(values.name, '--name', usage),
        locales: list(values.locales),
        defaultLocale: values['default-locale'],
      },
      FLAGS,
      usage,
    );
    const project = await withOrm(ctx.config(), async (em) => createProject(em, await findWorkspace(em, input.workspaceId), input));
    printJson(toProjectOutput(project));
  },
});
