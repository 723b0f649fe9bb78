import type { Orm } from '../../db/orm.js';
import { runSqlOnPool } from '../../db/sql.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import { liveProject } from './project.sql.js';

/** What every `/{projectId}/...` request needs to know about its project. */
export interface ProjectInfo {
  id: string;
  workspaceId: string;
  locales: string[];
  defaultLocale: string;
}

/** Same window as credentials: another process's delete or locale change shows within it. */
const PROJECT_CACHE_MS = 500;
const PROJECT_CACHE_MAX_ENTRIES = 10_000;

/**
 * Live (not deleted) projects by id, cached briefly: the hot read paths would otherwise spend a
 * query per request on a row that almost never changes.
 */
export class ProjectDirectory {
  /** `null`: no live project by that id, remembered as well. */
  private readonly cache = new TtlCache<string, ProjectInfo | null>({ ttlMs: PROJECT_CACHE_MS, maxEntries: PROJECT_CACHE_MAX_ENTRIES });

  constructor(private readonly orm: Orm) {}

  async get(projectId: string): Promise<ProjectInfo | null> {
    const hit = this.cache.get(projectId);
    if (hit !== undefined) return hit;
    const rows = await runSqlOnPool<{ id: string; workspace_id: string; locales: string[]; default_locale: string }>(this.orm.em, liveProject(projectId));
    const row = rows[0];
    const info = row ? { id: row.id, workspaceId: row.workspace_id, locales: row.locales, defaultLocale: row.default_locale } : null;
    this.cache.set(projectId, info);
    return info;
  }

  /** Forgets a project after this process changed or deleted it. */
  forget(projectId?: string): void {
    if (projectId) this.cache.delete(projectId);
    else this.cache.clear();
  }
}
