import { isDeepStrictEqual } from 'node:util';
import type { Sql } from '../../db/sql.js';
import { forbidden } from '../../errors/app-error.js';
import { isPlainObject } from '../../shared/schemas.js';
import { isLocalized, type RowScope, type TableDef } from '../tables/table-def.js';
import type { CompiledRule, TablePolicy } from './policy.js';
import type { RuleAction } from './role.schema.js';
import { conditionsOn } from './row-conditions.js';
import type { RowState } from './write-rules.sql.js';

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

/** Per action a change needs, the rules that may grant it. */
type Grants = [RuleAction, CompiledRule[]][];
/** What a change needs, or the 403's message when an action has no rule that may grant it. */
type Needed = Grants | string;

export class WriteRules {
  constructor(
    private readonly policy: TablePolicy,
    private readonly table: TableDef,
  ) {}

  /** Whether the caller's updates of PUBLISHED rows become drafts (docs/roles.md#rules). */
  get writeAsDraft(): boolean {
    return this.policy.writeAsDraft;
  }

  /** Throws 403 unless the caller's rules allow `change` (see above). */
  async check(sql: Sql, change: RowChange): Promise<void> {
    const [refusal] = await this.checkMany(sql, [change]);
    if (refusal !== null) throw forbidden(refusal);
  }

  /**
   * `check` for many changes at once (an import's batch): per change, null when the rules allow
   * it, else the 403's message. Each `where` is told in JavaScript where it can be; the others of
   * all changes are read in one query, and none when JavaScript told them all.
   */
  async checkMany(sql: Sql, changes: RowChange[]): Promise<(string | null)[]> {
    const needs = changes.map((change) => this.needed(change));
    const rowsOf = (change: RowChange) => [change.before, change.after].filter((r): r is RowState => r !== null);
    const told = needs.map((needed, i) =>
      typeof needed === 'string'
        ? new Map<CompiledRule, boolean | null>()
        : new Map(needed.flatMap(([, rules]) => rules).map((rule) => [rule, rule.where ? tellInJavaScript(rule.where, rowsOf(changes[i])) : true])),
    );
    const untold = (verdicts: Map<CompiledRule, boolean | null>) => [...verdicts].flatMap(([rule, verdict]) => (verdict === null ? [rule.where!.sql] : []));
    const conditions = [...new Set(told.flatMap(untold))];
    // The rows of the changes with an untold `where`, and where each change's rows are among them.
    const rows: RowState[] = [];
    const ranges = changes.map((change, i) => {
      const from = rows.length;
      if (untold(told[i]).length > 0) rows.push(...rowsOf(change));
      return [from, rows.length] as const;
    });
    const onRows = await conditionsOn(sql, rows, conditions);
    return needs.map((needed, i) => {
      if (typeof needed === 'string') return needed;
      const [from, to] = ranges[i];
      const own = Array.from({ length: to - from }, (_, k) => from + k);
      const holds = (rule: CompiledRule) => told[i].get(rule) ?? own.every((row) => onRows(row, rule.where!.sql));
      const refused = needed.find(([, rules]) => !rules.some(holds));
      return refused ? `This role cannot ${refused[0]} this row of table "${this.table.key}": it is outside the rows its rules allow` : null;
    });
  }

  /** The actions `change` needs and the rules that may grant each; the 403's message when an action has none. */
  private needed(change: RowChange): Needed {
    const action: RuleAction = change.before === null ? 'create' : change.after === null ? 'delete' : 'update';
    const written = change.after === null ? [] : (change.written ?? changedColumns(this.table, change.before?.data ?? {}, change.after.data));
    const publishing = publishes(change);
    const needed: Grants = [];
    // An update that changes nothing but the status is the publish (or unpublish) alone.
    if (!(publishing && action === 'update' && written.length === 0)) {
      const candidates = this.candidates(action, written);
      if (typeof candidates === 'string') return candidates;
      needed.push([action, candidates]);
    }
    if (publishing) needed.push(['publish', this.policy.grants.publish]);
    const none = needed.find(([, rules]) => rules.length === 0);
    return none ? `This role cannot ${none[0]} rows of table "${this.table.key}"` : needed;
  }

  /** The rules granting `action` that write every column of `written`; the 403's message naming the columns none of them writes. */
  private candidates(action: RuleAction, written: string[]): CompiledRule[] | string {
    const rules = this.policy.grants[action];
    if (rules.length === 0) return `This role cannot ${action} rows of table "${this.table.key}"`;
    const fitting = rules.filter((rule) => written.every((w) => covers(rule, w)));
    if (fitting.length > 0) return fitting;
    const outside = written.filter((w) => !rules.some((rule) => covers(rule, w)));
    const named = outside.length > 0 ? outside : written;
    return `This role cannot write ${named.map((n) => `"${n}"`).join(', ')} of table "${this.table.key}"`;
  }
}
