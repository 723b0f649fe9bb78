import type { Sql } from '../../../db/sql.js';
import type { ErrorDetail } from '../../../errors/app-error.js';
import type { ContentsRow } from '../rows/row.js';
import type { PlannedChange, RowRules } from '../rows/write.js';

/*
 * An import's lines checked against the caller's rules (docs/roles.md#imports): each line that
 * creates a row as a create, each upserted line that updates one as an update, a batch at a time
 * (one query for the batch's `where`s, none when no granting rule has one).
 */

/** The message of a line an import cannot write for a role whose updates of PUBLISHED rows become drafts. */
export const AS_DRAFT_REFUSAL = "This role's updates of PUBLISHED rows become drafts, which an import does not write: update this row with PUT";

/**
 * A batch's changes waiting for the rules, kept only for callers with a custom role: their rows
 * stay alive until the batch is written (the rows of derived slugs are checked with their slug).
 */
export class RuleChecks {
  private readonly lines: number[] = [];
  private readonly changes: PlannedChange[] = [];

  constructor(private readonly rules: RowRules) {}

  /** Whether an upsert's update of `current` must be refused before anything else: it would be a draft. */
  refusesUpdateOf(current: ContentsRow): boolean {
    return this.rules.writeAsDraft && current.status === 'PUBLISHED';
  }

  add(line: number, change: PlannedChange): void {
    this.lines.push(line);
    this.changes.push(change);
  }

  /** Checks the changes added; reports each refused line (`line N`, the 403's message) and answers them. */
  async refused(sql: Sql, report: (line: number, details: ErrorDetail[]) => void): Promise<Set<number>> {
    const refused = new Set<number>();
    if (this.changes.length === 0) return refused;
    const refusals = await this.rules.checkMany(sql, this.changes);
    refusals.forEach((message, i) => {
      if (message === null) return;
      const line = this.lines[i];
      refused.add(line);
      report(line, [{ field: `line ${line}`, message }]);
    });
    return refused;
  }
}
