import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { z } from 'zod';
import type { Config } from '../config/config.js';

/** What every command may use; the configuration is read only by commands that need it. */
export interface CliContext {
  config(): Config;
}

export interface Command {
  /** The words that select it, e.g. `workspace create`. */
  name: string;
  /** One line for the overview. */
  summary: string;
  /** The full `--help` text. */
  usage: string;
  /** Runs with the arguments after the command's words; resolves to the exit code. */
  run(args: string[], ctx: CliContext): Promise<number>;
}

/** Bad command-line input: the message and the command's usage go to stderr, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

type Values<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

interface CommandSpec<O extends ParseArgsOptionsConfig> {
  name: string;
  summary: string;
  usage: string;
  options: O;
  /** Names of the arguments that follow the command's words (all required), e.g. `<project> <table>`. */
  positionals?: readonly string[];
  /** Optional arguments after those. */
  optionalPositionals?: readonly string[];
  /** Resolves to the exit code (default 0). */
  run(values: Values<O>, ctx: CliContext, usage: (message: string) => UsageError, positionals: string[]): Promise<number | void>;
}

/**
 * A command whose options are parsed strictly: an unknown option, a missing value or a stray
 * argument is a UsageError. `--help` anywhere prints the usage and does nothing else.
 */
export function defineCommand<const O extends ParseArgsOptionsConfig>(spec: CommandSpec<O>): Command {
  const usage = (message: string) => new UsageError(message, spec.usage);
  return {
    name: spec.name,
    summary: spec.summary,
    usage: spec.usage,
    async run(args, ctx) {
      if (args.includes('--help') || args.includes('-h')) {
        process.stdout.write(`${spec.usage}\n`);
        return 0;
      }
      let values: Values<O>;
      let positionals: string[];
      const required = spec.positionals ?? [];
      const optional = spec.optionalPositionals ?? [];
      try {
        ({ values, positionals } = parseArgs({ args, options: spec.options, strict: true, allowPositionals: required.length + optional.length > 0 }) as { values: Values<O>; positionals: string[] });
      } catch (error) {
        throw usage((error as Error).message);
      }
      if (positionals.length < required.length) throw usage(`${required.slice(positionals.length).map((name) => `<${name}>`).join(' ')} required`);
      if (positionals.length > required.length + optional.length) throw usage(`unexpected argument "${positionals[required.length + optional.length]}"`);
      return (await spec.run(values, ctx, usage, positionals)) ?? 0;
    },
  };
}

/** A required option's value, or a UsageError naming it. */
export function required(value: string | undefined, flag: string, usage: (message: string) => UsageError): string {
  if (value === undefined || value.trim() === '') throw usage(`${flag} is required`);
  return value;
}

/** A comma-separated option (`--locales en,de`) as a list. */
export const list = (value: string | undefined): string[] | undefined =>
  value === undefined ? undefined : value.split(',').map((item) => item.trim()).filter(Boolean);

/**
 * Validates command-line input with the operation's own zod schema (the one the API uses), so
 * the CLI accepts exactly what the API accepts. Problems name the flag, not the body field.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, flags: Record<string, string>, usage: (message: string) => UsageError): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    // A bare value (not an object) has an empty path: its flag is under ''.
    const field = String(issue.path[0] ?? '');
    return `${flags[field] ?? field}: ${issue.message}`;
  });
  throw usage(problems.join('; '));
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
