import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { createPool } from '../../db/pool.js';
import { notFound } from '../../errors/app-error.js';
import { operatorAccess, type TableAccess } from '../../auth/project-access.js';
import { csvLines, importContents, ndjsonLines, prepareExport, type ExportFormat, type ImportLine } from '../../modules/contents/index.js';
import { ProjectDirectory } from '../../modules/projects/project-directory.js';
import { TableDefinitions } from '../../modules/tables/table-definitions.js';
import { createLogger } from '../../shared/logger.js';
import { defineCommand, printJson } from '../command.js';
import { withDatabase } from '../database.js';
import { openMigratedOrm } from '../../db/migrate.js';
import { progress } from '../progress.js';
import type { Config } from '../../config/config.js';
import { createOrmConfig } from '../../../mikro-orm.config.js';

const formatOf = (file: string, given: string | undefined): ExportFormat | null => {
  const format = given ?? (file.toLowerCase().endsWith('.csv') ? 'csv' : file.toLowerCase().match(/\.(nd)?jsonl?$/) ? 'ndjson' : undefined);
  return format === 'csv' || format === 'ndjson' ? format : null;
};

/** The operator's access to the table the command names (404 otherwise), with a plain pool for the contents statements. */
async function withTable<T>(config: Config, projectId: string, tableIdOrKey: string, fn: (table: TableAccess) => Promise<T>): Promise<T> {
  return withDatabase(config, async (url) => {
    const orm = await openMigratedOrm(createOrmConfig(url, { poolMax: 2 }));
    const pool = createPool(url, 2, createLogger('silent'));
    try {
      const projects = new ProjectDirectory(orm);
      const project = await projects.get(projectId);
      if (!project) throw notFound('Project');
      const access = operatorAccess(project, { projects, tables: new TableDefinitions(orm), pool, results: null });
      return await fn(await access.table(tableIdOrKey));
    } finally {
      await pool.end();
      await orm.close(true);
    }
  });
}

export const contentsImport = defineCommand({
  name: 'import',
  summary: 'Import rows into a table from an NDJSON or CSV file (all or nothing)',
  usage: `Usage: npm run cli -- import <projectId> <table> <file> [--format ndjson|csv] [--upsert]

Streams <file> into the table (an id or key) as POST .../contents/import does: every line is
checked as a single write, and when any line is wrong nothing is written and the first 100
offending lines are listed. --format defaults from the file's extension (.csv, else NDJSON);
--upsert updates the rows matched by "id" or by the slug column's value. Shows progress on
stderr; prints { "imported": n } on stdout.`,
  options: { format: { type: 'string' }, upsert: { type: 'boolean' } },
  positionals: ['projectId', 'table', 'file'],
  async run(values, ctx, usage, [projectId, tableIdOrKey, file]) {
    const format = formatOf(file, values.format);
    if (!format) throw usage('--format must be ndjson or csv');
    const found = await stat(file).catch(() => null);
    if (!found?.isFile()) throw usage(`${file}: no such file`);
    const size = found.size;
    const result = await withTable(ctx.config(), projectId, tableIdOrKey, async (tableAccess) => {
      const { project, table } = tableAccess;
      const source = createReadStream(file, { encoding: 'utf8' });
      const shown = progress(`import ${table.key}`);
      async function* counted(lines: AsyncIterable<ImportLine>) {
        for await (const line of lines) {
          shown.update(1, size > 0 ? source.bytesRead / size : 1);
          yield line;
        }
      }
      const lines = format === 'csv' ? csvLines(source, table, project) : ndjsonLines(source);
      try {
        return await importContents(tableAccess.writeScope(), counted(lines), { upsert: values.upsert === true });
      } finally {
        shown.done();
        source.destroy();
      }
    });
    printJson(result);
  },
});

export const contentsExport = defineCommand({
  name: 'export',
  summary: 'Export a table’s rows to an NDJSON or CSV file (or stdout)',
  usage: `Usage: npm run cli -- export <projectId> <table> [file] [--format ndjson|csv] [--filter JSON] [--sort JSON] [--fields a,b] [--locale fr] [--search text] [--escape-formulas true|false]

Writes every row the list with the same parameters would return, as GET .../contents/export
does, to [file] (stdout without one). --format defaults from the file's extension (.csv, else
NDJSON). In CSV, a text cell that begins with =, +, -, @, a tab or a carriage return gets a
leading ' (a spreadsheet would run it as a formula); --escape-formulas false writes it as it is,
for a file to import again. Shows progress on stderr.`,
  options: {
    format: { type: 'string' },
    filter: { type: 'string' },
    sort: { type: 'string' },
    fields: { type: 'string' },
    locale: { type: 'string' },
    search: { type: 'string' },
    op: { type: 'string' },
    'escape-formulas': { type: 'string' },
  },
  optionalPositionals: ['file'],
  positionals: ['projectId', 'table'],
  async run(values, ctx, usage, [projectId, tableIdOrKey, file]) {
    const format = formatOf(file ?? '', values.format) ?? (values.format === undefined ? 'ndjson' : null);
    if (!format) throw usage('--format must be ndjson or csv');
    const escape = values['escape-formulas'] ?? 'true';
    if (escape !== 'true' && escape !== 'false') throw usage('--escape-formulas must be true or false');
    await withTable(ctx.config(), projectId, tableIdOrKey, async (tableAccess) => {
      const { project, table } = tableAccess;
      const { format: _f, 'escape-formulas': _e, ...query } = values;
      const options = { format, escapeFormulas: escape === 'true' };
      const chunks = await prepareExport(tableAccess.exportScope(), { projectId: project.id, tableId: table.id, ...query }, options);
      const out = file ? createWriteStream(file) : process.stdout;
      const shown = progress(`export ${table.key}`);
      for await (const chunk of chunks()) {
        if (!out.write(chunk.data)) await once(out, 'drain');
        shown.update(chunk.rows);
      }
      shown.done();
      if (file) {
        out.end();
        await once(out, 'finish');
      }
    });
  },
});
