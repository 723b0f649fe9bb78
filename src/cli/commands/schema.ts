import { readFile, writeFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { dropRetiredIndexes } from '../../modules/columns/column.service.js';
import { findProject } from '../../modules/projects/project.service.js';
import type { ProjectInfo } from '../../modules/projects/project-directory.js';
import { snapshot as snapshotSchema, type Change, type Snapshot } from '../../modules/schema/schema.schema.js';
import { applySchema, diffSchema, pullSchema } from '../../modules/schema/schema.service.js';
import { defineCommand, printJson, required, type UsageError } from '../command.js';
import { withBoss, withOrm } from '../database.js';
import { formatPlan, wantsColor } from '../plan-format.js';

/** `schema pull | diff | apply`: schema as code from the command line (docs/environments.md#the-cli). */

async function projectInfo(em: EntityManager, projectId: string): Promise<ProjectInfo> {
  const project = await findProject(em, projectId);
  return { id: project.id, workspaceId: project.workspace.id, locales: project.locales, defaultLocale: project.defaultLocale };
}

/** The snapshot in `file`, checked with the API's own schema (the flag named on a problem). */
async function readSnapshot(file: string, usage: (message: string) => UsageError): Promise<Snapshot> {
  const text = await readFile(file, 'utf8').catch(() => {
    throw usage(`${file}: no such file`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw usage(`--file: ${file} is not JSON (${(error as Error).message})`);
  }
  const parsed = snapshotSchema.safeParse(json);
  if (!parsed.success) throw usage(`--file: not a schema snapshot: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

const printPlan = (changes: Change[], json: boolean | undefined, footer = '') => {
  if (json) printJson({ changes });
  else process.stdout.write(formatPlan(changes, wantsColor(process.stdout)) + footer);
};

export const schemaPull = defineCommand({
  name: 'schema pull',
  summary: 'Write a project schema snapshot (tables, columns, custom roles) as JSON',
  usage: `Usage: npm run cli -- schema pull --project <projectId> [--file schema.json]

Writes the project's snapshot, as GET /v1/{projectId}/schema answers it, to --file (or stdout),
indented, keys in a fixed order: two snapshots of the same schema are the same text.`,
  options: { project: { type: 'string' }, file: { type: 'string' } },
  async run(values, ctx, usage) {
    const projectId = required(values.project, '--project', usage);
    const snapshot = await withOrm(ctx.config(), async (em) => pullSchema(em, await projectInfo(em, projectId)));
    const text = `${JSON.stringify(snapshot, null, 2)}\n`;
    if (values.file) await writeFile(values.file, text);
    else process.stdout.write(text);
  },
});

export const schemaDiff = defineCommand({
  name: 'schema diff',
  summary: 'Show the plan that would turn a project schema into a snapshot file',
  usage: `Usage: npm run cli -- schema diff --project <projectId> --file schema.json [--json]

Prints the changes (+ create, ~ update, - drop; destructive ones marked with their row counts),
coloured on a terminal. --json prints { "changes": [...] } as POST .../schema/diff answers.`,
  options: { project: { type: 'string' }, file: { type: 'string' }, json: { type: 'boolean' } },
  async run(values, ctx, usage) {
    const projectId = required(values.project, '--project', usage);
    const snapshot = await readSnapshot(required(values.file, '--file', usage), usage);
    const changes = await withOrm(ctx.config(), async (em) => diffSchema(em, await projectInfo(em, projectId), snapshot));
    printPlan(changes, values.json);
  },
});

export const schemaApply = defineCommand({
  name: 'schema apply',
  summary: 'Apply a snapshot file to a project in one transaction',
  usage: `Usage: npm run cli -- schema apply --project <projectId> --file schema.json [--allow-destructive] [--dry-run] [--json]

Applies the plan as POST .../schema/apply does: the stored rows are checked first, destructive
changes (drops, lossy conversions) need --allow-destructive, and on any failure nothing changes
(exit 1, the reason on stderr). --dry-run runs every check and changes nothing. Prints the plan
(--json: { "changes": [...] }).`,
  options: { project: { type: 'string' }, file: { type: 'string' }, json: { type: 'boolean' }, 'allow-destructive': { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
  async run(values, ctx, usage) {
    const projectId = required(values.project, '--project', usage);
    const snapshot = await readSnapshot(required(values.file, '--file', usage), usage);
    const options = { allowDestructive: values['allow-destructive'], dryRun: values['dry-run'] };
    const config = ctx.config();
    const changes = await withOrm(config, async (em, url) =>
      withBoss(url, config, async (boss) => {
        const applied = await applySchema(em, boss, await projectInfo(em, projectId), snapshot, options);
        if (!options.dryRun && applied.length > 0) await dropRetiredIndexes(em);
        return applied;
      }),
    );
    const footer = changes.length === 0 ? '' : options.dryRun ? 'Dry run: nothing was applied.\n' : 'Applied.\n';
    printPlan(changes, values.json, footer);
  },
});
