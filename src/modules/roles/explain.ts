import type { Sql } from '../../db/sql.js';
import type { TableDef } from '../tables/table-def.js';
import { CONTENT_STATUSES, type ContentStatus } from '../tables/table.entity.js';
import type { CompiledRule, TablePolicy } from './policy.js';
import { RULE_ACTIONS, type RuleAction } from './role.schema.js';
import { conditionsOn } from './row-conditions.js';
import type { RowState } from './write-rules.sql.js';

/*
 * `GET .../access/explain` (docs/roles.md#explain): what a set of rules allows on one table, and
 * on one row of it: for each action whether it is allowed and by which rules (their indexes in
 * the role), and which columns are read and written. The console shows it beside a role.
 */

export interface Explanation {
  actions: Record<RuleAction, { allowed: boolean; rules: number[] }>;
  fields: { read: string[]; write: string[] };
}

/** The columns (`title`, or `title.fr`) the rules granting create or update write. */
function writtenFields(table: TableDef, policy: TablePolicy): string[] {
  const writers = [...policy.grants.create, ...policy.grants.update];
  if (writers.some((r) => r.write === null)) return table.columns.map((c) => c.name);
  const names = new Set(writers.flatMap((r) => r.write!));
  return [...names].sort();
}

/** Whether a rule reads a row of this status (a rule without `statuses`: the caller kind's default). */
const readsStatus = (rule: CompiledRule, status: string, keyCaller: boolean) =>
  (rule.rule.statuses ?? (keyCaller ? ['PUBLISHED'] : CONTENT_STATUSES)).includes(status as ContentStatus);

/**
 * The explanation for `policy` (compiled for the subject) on `table`, and on `row` when given:
 * then a rule counts only when its `where` (and, for reads, its statuses) hold the row.
 */
export async function explain(sql: Sql, table: TableDef, policy: TablePolicy, row: RowState | null, keyCaller: boolean): Promise<Explanation> {
  const holds = await rowHolds(sql, policy, row);
  const actions = Object.fromEntries(
    RULE_ACTIONS.map((action) => {
      const rules = policy.grants[action].filter((rule) => holds(rule) && (action !== 'read' || !row || readsStatus(rule, row.status, keyCaller)));
      return [action, { allowed: rules.length > 0, rules: rules.map((r) => r.index) }];
    }),
  ) as Explanation['actions'];
  const read = policy.grants.read.length > 0 ? policy.view.columns.map((c) => c.name) : [];
  return { actions, fields: { read, write: writtenFields(table, policy) } };
}

/** Which rules' `where` hold `row` (every rule when no row is asked about), in one query at most. */
async function rowHolds(sql: Sql, policy: TablePolicy, row: RowState | null): Promise<(rule: CompiledRule) => boolean> {
  if (!row) return () => true;
  const conditions = [...new Set(RULE_ACTIONS.flatMap((a) => policy.grants[a].flatMap((r) => (r.where ? [r.where.sql] : []))))];
  if (conditions.length === 0) return () => true;
  const holds = await conditionsOn(sql, [row], conditions);
  return (rule) => !rule.where || holds(0, rule.where.sql);
}
