import { isDeepStrictEqual } from 'node:util';
import type { Sql } from '../../db/sql.js';
import { forbidden } from '../../errors/app-error.js';
import { isPlainObject } from '../../shared/schemas.js';
import { isLocalized, type RowScope, type TableDef } from '../tables/table-def.js';
import type { CompiledRule, TablePolicy } from './policy.js';
import type { RuleAction } from './role.schema.js';
import { conditionsOnRows, type RowState } from './write-rules.sql.js';

/*
 * A write checked against the caller's rules (docs/roles.md#writes), before anything is written:
 * one rule granting the action must hold the row before and after the change in its `where` and
 * list every written column in `fields.write`; a change of status to or from PUBLISHED (or to
 * SCHEDULED), and a draft publish, needs a `publish` rule holding the row as well. Every refusal
 * is 403 and the write does not happen.
 */

/** A row change as the write is about to make it. */
export interface RowChange {
  /** The row as it is; null for a create. */
  before: RowState | null;
  /** The row as the write leaves it; null for a delete. */
  after: RowState | null;
  /** The columns the write sets (`title`, or `title.fr` for one locale); derived from the rows when absent. */
  written?: string[];
  /** A draft publish: a publish even though the status stays PUBLISHED. */
  publishes?: boolean;
}

/** The columns (`name`, or `name.locale` for one locale of a localized column) whose values differ. */
export function changedColumns(table: TableDef, before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const changed: string[] = [];
  for (const column of table.columns) {
    const [a, b] = [before[column.name], after[column.name]];
    if (isDeepStrictEqual(a ?? null, b ?? null)) continue;
    if (isLocalized(column) && (isPlainObject(a) || a == null) && (isPlainObject(b) || b == null)) {
      const [x, y] = [(a ?? {}) as Record<string, unknown>, (b ?? {}) as Record<string, unknown>];
      for (const locale of new Set([...Object.keys(x), ...Object.keys(y)])) {
        if (!isDeepStrictEqual(x[locale] ?? null, y[locale] ?? null)) changed.push(`${column.name}.${locale}`);
      }
    } else {
      changed.push(column.name);
    }
  }
  return changed;
}

/** Whether a rule's `fields.write` covers a written column (`title` covers `title.fr`). */
const covers = (rule: CompiledRule, written: string) => rule.write === null || rule.write.includes(written) || rule.write.includes(written.split('.')[0]);

const PUBLIC_STATUSES = new Set(['PUBLISHED', 'SCHEDULED']);

/** Whether a change publishes, schedules or unpublishes. */
const publishes = (change: RowChange) =>
  change.publishes === true ||
  (change.after !== null && change.after.status !== change.before?.status && (PUBLIC_STATUSES.has(change.after.status) || change.before?.status === 'PUBLISHED'));

/** Whether `where` holds every row, told in JavaScript; null when it cannot be (the database decides). */
function tellInJavaScript(where: RowScope, rows: RowState[]): boolean | null {
  if (where.timestamps) return null;
  let all = true;
  for (const row of rows) {
    const verdict = where.matches(row);
    if (verdict === null) return null;
    all &&= verdict;
  }
  return all;
}

export class WriteRules {
  constructor(
    private readonly policy: TablePolicy,
    private readonly table: TableDef,
  ) {}

  /** Throws 403 unless the caller's rules allow `change` (see above). */
  async check(sql: Sql, change: RowChange): Promise<void> {
    const action: RuleAction = change.before === null ? 'create' : change.after === null ? 'delete' : 'update';
    const rows = [change.before, change.after].filter((r): r is RowState => r !== null);
    const written = change.after === null ? [] : (change.written ?? changedColumns(this.table, change.before?.data ?? {}, change.after.data));
    const publishing = publishes(change);
    const needed: [RuleAction, CompiledRule[]][] = [];
    // An update that changes nothing but the status is the publish (or unpublish) alone.
    if (!(publishing && action === 'update' && written.length === 0)) needed.push([action, this.candidates(action, written)]);
    if (publishing) needed.push(['publish', this.policy.grants.publish]);
    for (const [act, rules] of needed) {
      if (rules.length === 0) throw forbidden(`This role cannot ${act} rows of table "${this.table.key}"`);
    }
    // Each `where` in JavaScript where it can tell; the rest in one query on the rows as given.
    const told = new Map<CompiledRule, boolean | null>();
    for (const rule of needed.flatMap(([, rules]) => rules)) told.set(rule, rule.where ? tellInJavaScript(rule.where, rows) : true);
    const conditions = [...new Set([...told].flatMap(([rule, verdict]) => (verdict === null ? [rule.where!.sql] : [])))];
    const results = conditions.length === 0 ? [] : await sql<Record<string, boolean>>(conditionsOnRows(rows, conditions));
    const holds = (rule: CompiledRule) => told.get(rule) ?? results.every((row) => row[`c${conditions.indexOf(rule.where!.sql)}`] === true);
    for (const [act, rules] of needed) {
      if (!rules.some(holds)) throw forbidden(`This role cannot ${act} this row of table "${this.table.key}": it is outside the rows its rules allow`);
    }
  }

  /** The rules granting `action` that write every column of `written`; 403 naming the columns none of them writes. */
  private candidates(action: RuleAction, written: string[]): CompiledRule[] {
    const rules = this.policy.grants[action];
    if (rules.length === 0) throw forbidden(`This role cannot ${action} rows of table "${this.table.key}"`);
    const fitting = rules.filter((rule) => written.every((w) => covers(rule, w)));
    if (fitting.length > 0) return fitting;
    const outside = written.filter((w) => !rules.some((rule) => covers(rule, w)));
    const named = outside.length > 0 ? outside : written;
    throw forbidden(`This role cannot write ${named.map((n) => `"${n}"`).join(', ')} of table "${this.table.key}"`);
  }
}
