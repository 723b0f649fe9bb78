import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { UsageError, type Command } from './command.js';
import { deliveriesReplay } from './commands/deliveries.js';
import { keyCreate } from './commands/key.js';
import { migrate } from './commands/migrate.js';
import { projectCreate } from './commands/project.js';
import { queues } from './commands/queues.js';
import { tokenCreate } from './commands/token.js';
import { workspaceCreate } from './commands/workspace.js';
import { contentsExport, contentsImport } from './commands/contents-io.js';
import { schemaApply, schemaDiff, schemaPull } from './commands/schema.js';

/**
 * `npm run cli -- <command> [options]`: the operator's tools. Exit codes: 0 done, 1 the
 * operation failed (its error code and message on stderr), 2 the command line was wrong
 * (usage on stderr).
 */
const COMMANDS: Command[] = [tokenCreate, workspaceCreate, projectCreate, keyCreate, contentsImport, contentsExport, schemaPull, schemaDiff, schemaApply, queues, deliveriesReplay, migrate];

const column = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
const OVERVIEW = `Usage: npm run cli -- <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(column)}${c.summary}`).join('\n')}

Run any command with --help for its options, e.g. npm run cli -- workspace create --help
Without DATABASE_URL the commands use the embedded database in ./.data/pg (the one npm start runs).`;

/** `workspace --help`: the commands of one group. */
function groupUsage(group: string): string | undefined {
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  if (members.length === 0) return undefined;
  return `Usage: npm run cli -- ${group} <${members.map((c) => c.name.split(' ')[1]).join('|')}> [options]

${members.map((c) => `  ${c.name.padEnd(column)}${c.summary}`).join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const firstOption = argv.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption === -1 ? argv : argv.slice(0, firstOption);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (argv.length === 0 || (words.length === 0 && wantsHelp) || (words[0] === 'help' && words.length === 1)) {
    process.stdout.write(`${OVERVIEW}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === words.slice(0, c.name.split(' ').length).join(' '));
  if (!command) {
    const group = groupUsage(words[0]);
    if (group && words.length === 1 && wantsHelp) {
      process.stdout.write(`${group}\n`);
      return 0;
    }
    const what = words.length ? `Unknown command "${words.join(' ')}"` : `Unknown option "${argv[0]}"`;
    throw new UsageError(group && words.length === 1 ? `"${words[0]}" needs a subcommand` : what, group ?? OVERVIEW);
  }
  let config: Config | undefined;
  const ctx = { config: () => (config ??= loadConfig()) };
  return command.run(argv.slice(command.name.split(' ').length), ctx);
}

function describeFailure(error: unknown): { code: number; text: string } {
  if (error instanceof UsageError) return { code: 2, text: `error: ${error.message}\n\n${error.usage}` };
  if (error instanceof ConfigError) return { code: 1, text: error.message };
  if (error instanceof AppError) {
    const details = (error.details ?? []).map((d) => `\n  ${d.field}: ${d.message}`).join('');
    return { code: 1, text: `error: ${error.errorCode}: ${error.message}${details}` };
  }
  return { code: 1, text: `error: ${(error as Error)?.message ?? String(error)}` };
}

let exitCode: number;
try {
  exitCode = await main(process.argv.slice(2));
} catch (error) {
  const failure = describeFailure(error);
  process.stderr.write(`${failure.text}\n`);
  if (failure.code === 1 && process.env.LOG_LEVEL === 'debug') console.error(error);
  exitCode = failure.code;
}
// Writes to pipes and terminals are synchronous on Linux, so nothing printed is lost; exiting
// here does not wait for a library's stray timer.
process.exit(exitCode);
