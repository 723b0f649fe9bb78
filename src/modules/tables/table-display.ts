import { fieldInvalid } from '../../errors/app-error.js';
import { COLUMN_NAME } from './table-def.js';

/*
 * A table's `settings.display` (docs/contents.md#tables-and-columns): either one column name
 * (`title`) or a template whose `{{name}}` placeholders name columns (`{{title}} ({{sku}})`).
 * The console renders it; the API only keeps it consistent with the columns.
 */

const PLACEHOLDER = /\{\{\s*([^{}\s]*)\s*\}\}/g;

/** The column names a display names, in order; null when it is not a valid display. */
export function displayColumns(display: string): string[] | null {
  if (!display.includes('{{')) return COLUMN_NAME.test(display.trim()) ? [display.trim()] : null;
  const names = [...display.matchAll(PLACEHOLDER)].map((m) => m[1]);
  // Braces left over after the placeholders are an unclosed or malformed one.
  if (/[{}]{2}/.test(display.replace(PLACEHOLDER, ''))) return null;
  return names.every((n) => COLUMN_NAME.test(n)) ? names : null;
}

/** 422 on `settings.display` naming what is wrong: a malformed template or unknown columns. */
export function checkDisplay(display: string, columnNames: string[]): void {
  const names = displayColumns(display);
  if (names === null) {
    throw fieldInvalid('settings.display', 'must be a column name or a template of {{column}} placeholders');
  }
  const unknown = [...new Set(names.filter((n) => !columnNames.includes(n)))];
  if (unknown.length > 0) throw fieldInvalid('settings.display', `names unknown columns: ${unknown.join(', ')}`);
}

/** The display after column `from` is renamed `to`: it keeps naming the same column. */
export function renameInDisplay(display: string, from: string, to: string): string {
  if (!display.includes('{{')) return display.trim() === from ? to : display;
  return display.replace(PLACEHOLDER, (whole, name: string) => (name === from ? `{{${to}}}` : whole));
}
