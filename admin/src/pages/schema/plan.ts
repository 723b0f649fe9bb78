import type { RouterOutputs } from 'tabula/client';

/** One change of a schema plan (docs/environments.md#plans). */
export type Change = RouterOutputs['schema']['diff']['changes'][number];

const WORDS: Record<Change['op'], string> = {
  createTable: 'Create table',
  updateTable: 'Change table',
  dropTable: 'Drop table',
  addColumn: 'Add column',
  updateColumn: 'Change column',
  dropColumn: 'Drop column',
  createRole: 'Create role',
  updateRole: 'Change role',
  dropRole: 'Drop role',
};

/** What a change is about, as its confirmation names it: `books`, `books.isbn`, `Translator`. */
export const subjectOf = (change: Change): string => change.role ?? (change.column ? `${change.table}.${change.column}` : (change.table ?? ''));

export const actionOf = (change: Change): string => WORDS[change.op];

/** The keys of `from` and `to`, side by side, as short JSON text. */
export function differences(change: Change): { key: string; from: string; to: string }[] {
  const keys = new Set([...Object.keys(change.from ?? {}), ...Object.keys(change.to ?? {})]);
  const shown = (value: unknown) => (value === undefined ? '—' : JSON.stringify(value));
  return [...keys].map((key) => ({ key, from: shown(change.from?.[key]), to: shown(change.to?.[key]) }));
}

/** A stable key for a change, for its confirmation box. */
export const changeKey = (change: Change, index: number): string => `${index}:${change.op}:${subjectOf(change)}`;
