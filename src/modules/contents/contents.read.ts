import type pg from 'pg';
import { sqlOn } from '../../db/sql.js';
import { invalidQuery, notFound } from '../../errors/app-error.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import type { TableDef } from '../tables/table-def.js';
import { findRow } from './contents.write.js';
import { toContentsOutput } from './contents.row.js';
import type { ContentsOutput } from './contents.schema.js';

export interface ReadScope {
  pool: pg.Pool;
  table: TableDef;
  project: ProjectInfo;
  /** Read keys see PUBLISHED rows only (SPEC §4). */
  publicOnly: boolean;
}

export function checkLocale(project: ProjectInfo, locale: string | undefined): void {
  if (locale !== undefined && !project.locales.includes(locale)) {
    throw invalidQuery(`locale: "${locale}" is not a project locale (${project.locales.join(', ')})`);
  }
}

/** One row by id or slug; non-public rows are 404 for read keys, as if they did not exist. */
export async function getContents(scope: ReadScope, contentsId: string, locale?: string): Promise<ContentsOutput> {
  const row = await findRow(sqlOn(scope.pool), scope.table, contentsId);
  if (scope.publicOnly && row.status !== 'PUBLISHED') throw notFound('Contents');
  checkLocale(scope.project, locale);
  return toContentsOutput(scope.table, row, { locale, defaultLocale: scope.project.defaultLocale });
}
