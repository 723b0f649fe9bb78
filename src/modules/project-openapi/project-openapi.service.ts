import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../errors/app-error.js';
import { ColumnSchema } from '../columns/column.entity.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { TableSchema } from '../tables/table.entity.js';
import { buildProjectDocument } from './project-document.js';
import type { DocTable } from './table-paths.js';

/** The project's live tables with their live columns, tables by creation, columns by position. */
async function loadTables(em: EntityManager, projectId: string): Promise<DocTable[]> {
  const tables = await em.find(TableSchema, { project: projectId, deletedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  if (tables.length === 0) return [];
  const columns = await em.find(
    ColumnSchema,
    { table: { $in: tables.map((t) => t.id) }, deletedAt: null },
    { orderBy: { position: 'asc', id: 'asc' } },
  );
  return tables.map((t) => ({
    id: t.id,
    key: t.key,
    name: t.name,
    description: t.description,
    defaultStatus: t.defaultStatus,
    columns: columns
      .filter((c) => c.table.id === t.id)
      .map((c) => ({ id: c.id, name: c.name, label: c.label, type: c.type, settings: c.settings })),
  }));
}

/** The OpenAPI document of one project's contents (see project-document.ts). */
export async function projectOpenApiDocument(em: EntityManager, projectId: string): Promise<Record<string, unknown>> {
  const project = await em.findOne(ProjectSchema, { id: projectId, deletedAt: null });
  // The access check found it a moment ago; a delete in between is still a 404.
  if (!project) throw notFound('Project');
  const tables = await loadTables(em, projectId);
  return buildProjectDocument({ id: project.id, name: project.name, locales: project.locales, defaultLocale: project.defaultLocale }, tables);
}
