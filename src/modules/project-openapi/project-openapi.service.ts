import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../errors/app-error.js';
import { ColumnSchema } from '../columns/column.entity.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { TableSchema } from '../tables/table.entity.js';
import { buildProjectDocument } from './project-document.js';
import type { DocTable } from './table-paths.js';

/**
 * What a caller sees of a table: its view (readable columns), or null when its rules grant
 * nothing on it (docs/roles.md#rules). Absent: everything.
 */
export type TableViewer = (tableId: string) => Promise<{ columns: { id: string }[] } | null>;

/** The project's live tables with their live columns, tables by creation, columns by position. */
async function loadTables(em: EntityManager, projectId: string, viewer?: TableViewer): Promise<DocTable[]> {
  const tables = await em.find(TableSchema, { project: projectId, deletedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  if (tables.length === 0) return [];
  const columns = await em.find(
    ColumnSchema,
    { table: { $in: tables.map((t) => t.id) }, deletedAt: null },
    { orderBy: { position: 'asc', id: 'asc' } },
  );
  const views = viewer ? await Promise.all(tables.map((t) => viewer(t.id))) : null;
  const shown = (tableId: string, columnId: string) => {
    if (!views) return true;
    return views[tables.findIndex((t) => t.id === tableId)]?.columns.some((c) => c.id === columnId) ?? false;
  };
  return tables.filter((_, i) => !views || views[i] !== null).map((t) => ({
    id: t.id,
    key: t.key,
    name: t.name,
    description: t.description,
    defaultStatus: t.defaultStatus,
    columns: columns
      .filter((c) => c.table.id === t.id && shown(t.id, c.id))
      .map((c) => ({ id: c.id, name: c.name, label: c.label, type: c.type, settings: c.settings })),
  }));
}

/** The OpenAPI document of one project's contents (see project-document.ts). */
export async function projectOpenApiDocument(em: EntityManager, projectId: string, viewer?: TableViewer): Promise<Record<string, unknown>> {
  const project = await em.findOne(ProjectSchema, { id: projectId, deletedAt: null });
  // The access check found it a moment ago; a delete in between is still a 404.
  if (!project) throw notFound('Project');
  const tables = await loadTables(em, projectId, viewer);
  return buildProjectDocument({ id: project.id, name: project.name, locales: project.locales, defaultLocale: project.defaultLocale }, tables);
}
