import type { JsonbArrayWriter } from '../../../db/jsonb-param.js';
import type { ErrorDetail } from '../../../errors/app-error.js';
import type { ContentStatus } from '../../tables/table.entity.js';
import type { NewRow } from '../rows/row.js';
import { newRowJson } from '../rows/rows.sql.js';
import type { ValidatedData } from '../rows/validate.js';
import type { DerivedSlugs } from './derived-slugs.js';
import type { ImportedUpdate } from './import.sql.js';
import type { RuleChecks } from './import-rules.js';

/** What a line asks to look up before it is written: referenced rows not known yet, and files. */
export interface LineLookups extends Pick<ValidatedData, 'references' | 'files'> {
  line: number;
}

/**
 * A batch's new rows, checked and ready to write, as parallel arrays: the line, the row id and
 * the JSON text the insert takes. No object per row stays alive while the batch is written: a
 * thousand such objects, alive whenever V8 collected its young generation, made V8 allocate
 * them (and the objects of every row after them) in the old generation directly, and the API's
 * heap grew by about 90 MB per 100,000 rows until a full collection (measured 2026-11-26).
 */
export class PlannedInserts {
  readonly lines: number[] = [];
  readonly ids: string[] = [];
  readonly jsons: string[] = [];
  /** Rows whose slug is still to be derived (their JSON is written then), by index. */
  readonly deriving = new Map<number, { row: NewRow; base: string }>();

  add(line: number, insert: NewRow, derivedSlug: string | null): void {
    if (derivedSlug !== null) this.deriving.set(this.jsons.length, { row: insert, base: derivedSlug });
    this.lines.push(line);
    this.ids.push(insert.row.id);
    this.jsons.push(derivedSlug === null ? newRowJson(insert) : '');
  }

  /** Writes the JSON of the rows whose slugs were derived. */
  derived(): void {
    for (const [i, { row }] of this.deriving) this.jsons[i] = newRowJson(row);
    this.deriving.clear();
  }

  without(refused: Set<number>): PlannedInserts {
    if (refused.size === 0) return this;
    const kept = new PlannedInserts();
    this.lines.forEach((line, i) => {
      if (refused.has(line)) return;
      kept.lines.push(line);
      kept.ids.push(this.ids[i]);
      kept.jsons.push(this.jsons[i]);
    });
    return kept;
  }
}

/** A line that updates an existing row (upsert). */
export interface PlannedUpdate {
  line: number;
  update: ImportedUpdate;
  from: ContentStatus;
}

/** A batch's lines checked on their own (types, rules, status): what to write, and what to look up first. */
export interface BatchPlan {
  inserts: PlannedInserts;
  updates: PlannedUpdate[];
  lookups: LineLookups[];
  /** The lines' changes for the caller's rules; null when the caller has none. */
  checks: RuleChecks | null;
}

/** References not found when their line was written: rows later in the file may still create them. */
export interface PendingReference {
  line: number;
  column: string;
  tableId: string;
  ids: string[];
}

export interface BatchContext {
  upsert: boolean;
  report: (line: number, details: ErrorDetail[]) => void;
  /** A line the caller's rules refuse (403). */
  refuse: (line: number, details: ErrorDetail[]) => void;
  slugs: DerivedSlugs;
  pending: PendingReference[];
  /**
   * Referenced rows found so far, by table: they are locked (`for key share`) until the import
   * ends, so they stay and need no second look. A file referencing the same thousand authors
   * in every batch asks for them once.
   */
  found: Map<string, Set<string>>;
  /** The batches' insert parameter, one buffer for the whole import. */
  param: JsonbArrayWriter;
}

export const prefixed = (line: number, details: ErrorDetail[]) => details.map((d) => ({ field: `line ${line}: ${d.field}`, message: d.message }));
