import type { Change } from '../modules/schema/schema.schema.js';

/**
 * A schema plan for the terminal (docs/environments.md#the-cli): one line per change, `+` for
 * what is created, `~` changed, `-` dropped, destructive changes marked with their row counts.
 * Coloured only for a terminal (and not under NO_COLOR), so that a pipe or a file gets plain text.
 */

const CODES = { green: 32, yellow: 33, red: 31, bold: 1, dim: 2 } as const;
type Paint = (style: keyof typeof CODES, text: string) => string;
const painter = (color: boolean): Paint => (style, text) => (color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text);

const show = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? 'none');

/** `name "A" → "B"; type integer → text` for the fields a change touches. */
function fields(change: Change): string {
  const from = change.from ?? {};
  const to = change.to ?? {};
  return Object.keys(to)
    .map((key) => {
      if (key === 'columns') return `columns ${(from.columns as string[]).join(', ')} → ${(to.columns as string[]).join(', ')}`;
      if (key === 'type' || key === 'name') return `${key} ${String(from[key])} → ${String(to[key])}`;
      return `${key} ${show(from[key])} → ${show(to[key])}`;
    })
    .join('; ');
}

const rowsOf = (change: Change) => (change.rows !== undefined ? ` (${change.rows} row${change.rows === 1 ? '' : 's'})` : '');

function line(change: Change, paint: Paint): string {
  const column = `${change.table}.${change.column}`;
  const settings = (c: Record<string, unknown> | undefined) => {
    const s = c?.settings as Record<string, unknown> | undefined;
    return s && Object.keys(s).length > 0 ? ` ${JSON.stringify(s)}` : '';
  };
  const [mark, style, text] = ((): ['+' | '~' | '-', 'green' | 'yellow' | 'red', string] => {
    switch (change.op) {
      case 'createTable':
        return ['+', 'green', `create table ${change.table} (name ${show(change.to?.name)}, defaultStatus ${String(change.to?.defaultStatus)})`];
      case 'updateTable':
        return ['~', 'yellow', `update table ${change.table}: ${fields(change)}`];
      case 'dropTable':
        return ['-', 'red', `drop table ${change.table}${rowsOf(change)}`];
      case 'addColumn':
        return ['+', 'green', `add column ${column} ${String(change.to?.type)}${settings(change.to)}`];
      case 'updateColumn':
        return ['~', 'yellow', `update column ${column}: ${fields(change)}${rowsOf(change)}`];
      case 'dropColumn':
        return ['-', 'red', `drop column ${column} ${String(change.from?.type)}${rowsOf(change)}`];
      case 'createRole':
        return ['+', 'green', `create role ${change.role}`];
      case 'updateRole':
        return ['~', 'yellow', `update role ${change.role}: ${Object.keys(change.to ?? {}).join(', ')}`];
      case 'dropRole':
        return ['-', 'red', `drop role ${change.role}`];
    }
  })();
  const flag = change.destructive ? ` ${paint('bold', paint('red', 'DESTRUCTIVE'))}` : '';
  return `${paint(style, `${mark} ${text}`)}${flag}`;
}

export function formatPlan(changes: Change[], color: boolean): string {
  const paint = painter(color);
  if (changes.length === 0) return 'No changes: the project already matches the snapshot.\n';
  const destructive = changes.filter((c) => c.destructive);
  const summary = `${changes.length} change${changes.length === 1 ? '' : 's'}, ${destructive.length} destructive`;
  return `${changes.map((c) => line(c, paint)).join('\n')}\n\n${paint('dim', summary)}\n`;
}

/** Colour for an interactive terminal only (https://no-color.org). */
export const wantsColor = (stream: NodeJS.WriteStream): boolean => Boolean(stream.isTTY) && !process.env.NO_COLOR;
