import type { Orm } from '../db/orm.js';
import { runSqlOnPool } from '../db/sql.js';
import { liveProject } from './auth.sql.js';

/** What every `/{projectId}/...` request needs to know about its project. */
export interface ProjectInfo {
  id: string;
  workspaceId: string;
  locales: string[];
  defaultLocale: string;
}

/** Same window as credentials: another process's delete or locale change shows within it. */
const PROJECT_CACHE_MS = 500;

/**
 * Live (not deleted) projects by id, cached briefly: the hot read paths would otherwise spend a
 * query per request on a row that almost never changes.
 */
export class ProjectDirectory {
  private readonly cache = new Map<string, { info: ProjectInfo | null; until: number }>();

  constructor(private readonly orm: Orm) {}

  async get(projectId: string): Promise<ProjectInfo | null> {
    const now = Date.now();
    const hit = this.cache.get(projectId);
    if (hit && hit.until > now) return hit.info;
    const rows = await runSqlOnPool<{ id: string; workspace_id: string; locales: string[]; default_locale: string }>(this.orm.em, liveProject(projectId));
    const row = rows[0];
    const info = row ? { id: row.id, workspaceId: row.workspace_id, locales: row.locales, defaultLocale: row.default_locale } : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(projectId, { info, until: now + PROJECT_CACHE_MS });
    return info;
  }

  /** Forgets a project after this process changed or deleted it. */
  forget(projectId?: string): void {
    if (projectId) this.cache.delete(projectId);
    else this.cache.clear();
  }
}
