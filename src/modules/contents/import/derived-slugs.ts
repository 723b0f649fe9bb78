import type { Sql } from '../../../db/sql.js';
import type { NewRow } from '../rows/row.js';
import { freeSlug } from '../rows/uniqueness.js';
import { slugsLikeAny } from './import.sql.js';

/**
 * Slugs derived from a source column must be free, by the rule of single creates (freeSlug):
 * against the stored rows (one query per batch) and against the rows this import derived before.
 */
export class DerivedSlugs {
  /** The slugs this import derived, by the base they were derived from. */
  private readonly assigned = new Map<string, string[]>();
  private readonly all = new Set<string>();

  constructor(
    private readonly sql: Sql,
    private readonly tableId: string,
  ) {}

  /** Gives each row a free slug derived from its `base`, in the row and in its data's `column`. */
  async assign(rows: { row: NewRow; base: string }[], column: string): Promise<void> {
    if (rows.length === 0) return;
    const bases = [...new Set(rows.map((r) => r.base))];
    const stored = (await this.sql<{ slug: string }>(slugsLikeAny(this.tableId, bases))).map((r) => r.slug);
    for (const { row, base } of rows) {
      let mine = this.assigned.get(base);
      if (!mine) this.assigned.set(base, (mine = []));
      const taken = [...stored, ...mine];
      // A slug derived here from another base (`mug-2` from "Mug 2") is taken too.
      let slug = freeSlug(base, taken);
      while (this.all.has(slug)) {
        taken.push(slug);
        slug = freeSlug(base, taken);
      }
      mine.push(slug);
      this.all.add(slug);
      row.row.slug = slug;
      row.row.data = { ...row.row.data, [column]: slug };
    }
  }
}
