import { AppError, type ErrorDetail } from '../../errors/app-error.js';
import { checkValue } from '../contents/index.js';
import { checkSettings } from '../columns/column.settings.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import { builtInRole } from '../roles/built-in-roles.js';
import { COLUMN_NAME, type ColumnDef } from '../tables/table-def.js';
import { displayColumns } from '../tables/table-display.js';
import { TABLE_KEY } from '../tables/table.schema.js';
import type { Snapshot } from './schema.schema.js';

/**
 * What a snapshot must be on its own, before it is compared with a project
 * (docs/environments.md#snapshots): each problem one 422 detail, its field the path by names
 * (`tables.posts.columns.title.settings`). The column settings are checked by the columns
 * module's own rules; what needs the stored rows or the role rules' meaning is checked later.
 */
export function checkSnapshot(target: Snapshot, project: ProjectInfo): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const add = (field: string, message: string) => details.push({ field, message });
  const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
  if (!sameSet(target.locales, project.locales)) {
    add('locales', `are ${project.locales.join(', ')} in this project, not ${target.locales.join(', ')}: change the project's locales first`);
  }
  if (target.defaultLocale !== project.defaultLocale) add('defaultLocale', `is ${project.defaultLocale} in this project, not ${target.defaultLocale}`);

  const keys = new Set<string>();
  for (const table of target.tables) {
    const path = `tables.${table.key}`;
    if (!TABLE_KEY.test(table.key)) add(`${path}.key`, 'must match ^[a-z][a-z0-9_]{0,62}$');
    if (keys.has(table.key)) add(`${path}.key`, 'is given twice');
    keys.add(table.key);
  }
  for (const table of target.tables) {
    const names = new Set(table.columns.map((c) => c.name));
    const seen = new Set<string>();
    const renamed = new Set<string>();
    let slugs = 0;
    for (const column of table.columns) {
      const path = `tables.${table.key}.columns.${column.name}`;
      if (!COLUMN_NAME.test(column.name)) add(`${path}.name`, 'must match ^[A-Za-z][A-Za-z0-9_]{0,62}$');
      if (seen.has(column.name)) add(`${path}.name`, 'is given twice');
      seen.add(column.name);
      if (column.label.length > 200) add(`${path}.label`, 'must be at most 200 characters');
      if (column.renamedFrom !== undefined) {
        if (names.has(column.renamedFrom)) add(`${path}.renamedFrom`, `"${column.renamedFrom}" is still a column of this table`);
        if (renamed.has(column.renamedFrom)) add(`${path}.renamedFrom`, `"${column.renamedFrom}" is renamed twice`);
        renamed.add(column.renamedFrom);
      }
      if (column.type === 'slug') slugs++;
      let settings: ColumnDef['settings'];
      try {
        settings = checkSettings(column.type, { ...column.settings });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        add(`${path}.settings`, error.message.replace(/^Invalid request: /, ''));
        continue;
      }
      if (column.type === 'reference' && !keys.has(settings.table!)) add(`${path}.settings.table`, `"${settings.table}" is not a table of the snapshot`);
      if (column.type === 'slug' && settings.source !== undefined && table.columns.find((c) => c.name === settings.source)?.type !== 'text') {
        add(`${path}.settings.source`, 'must name a text column of this table');
      }
      if (settings.defaultValue !== undefined && settings.defaultValue !== null) {
        const checked = checkValue({ id: '', name: column.name, type: column.type, settings }, settings.defaultValue);
        if (!checked.ok) add(`${path}.settings.defaultValue`, checked.message);
      }
    }
    if (slugs > 1) add(`tables.${table.key}.columns`, 'a table has at most one slug column');
    // A display names columns of the table as the snapshot has it (one it adds or renames too).
    const display = table.settings?.display;
    if (display !== undefined) {
      const shown = displayColumns(display);
      const unknown = [...new Set(shown?.filter((n) => !names.has(n)) ?? [])];
      if (shown === null) add(`tables.${table.key}.settings.display`, 'must be a column name or a template of {{column}} placeholders');
      else if (unknown.length > 0) add(`tables.${table.key}.settings.display`, `names unknown columns: ${unknown.join(', ')}`);
    }
  }
  const roles = new Set<string>();
  for (const role of target.roles) {
    if (builtInRole(role.name)) add(`roles.${role.name}.name`, 'is a built-in role (the snapshot lists custom roles only)');
    if (roles.has(role.name)) add(`roles.${role.name}.name`, 'is given twice');
    roles.add(role.name);
  }
  return details;
}
