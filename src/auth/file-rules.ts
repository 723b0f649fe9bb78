import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/sql.js';
import { forbidden, notFound } from '../errors/app-error.js';
import { findFile, listFiles, listFilesInScope, type FileCheck, type FileFields } from '../modules/files/file.service.js';
import type { FileRecord } from '../modules/files/file.entity.js';
import type { ListFilesInput } from '../modules/files/file.schema.js';
import { fileReferencedByRows, fileReferrerRows, tablesWithFileColumns, type FileReferenceSource } from '../modules/files/file.sql.js';
import { isMultiple } from '../modules/tables/table-def.js';
import { fileInside, type FileAction, type FileRule, type FileScope, type FilesPolicy } from '../modules/roles/files-policy.js';
import type { ProjectAccess } from './project-access.js';

/*
 * What a caller may do with the project's file library (docs/roles.md#files). A custom role's
 * `$files` rules decide: `read` lists files and reads their metadata, `create`, `update` and
 * `delete` upload, replace or rename, and remove them, each only for files inside the rule's
 * `where`. A file referenced by a row the caller reads is downloadable besides. Built-in grants
 * (keys' permissions, members' built-in roles) keep their level's access to every file.
 */

export type FileWrite = Exclude<FileAction, 'read'>;

const VERB: Record<FileWrite, string> = { create: 'upload', update: 'replace or rename', delete: 'delete' };

export class FileRules {
  private readonly policy: FilesPolicy | null;

  constructor(
    private readonly access: ProjectAccess,
    private readonly em: EntityManager,
  ) {
    this.policy = access.role ? access.filesPolicy() : null;
  }

  private get projectId(): string {
    return this.access.project.id;
  }

  /** A page of the files the caller lists: 403 for a role without a `$files` read rule. */
  async list(input: ListFilesInput) {
    const scope = this.readScope();
    return scope ? listFilesInScope(this.em, this.projectId, input, scope.sql) : listFiles(this.em, this.projectId, input);
  }

  /** One file's metadata: 403 for a role without a `$files` read rule, 404 outside its read rules. */
  async read(fileId: string): Promise<FileRecord> {
    const scope = this.readScope();
    const file = await findFile(this.em, this.projectId, fileId);
    if (scope && !(await this.inside(scope, file))) throw notFound('File');
    return file;
  }

  /** A file's bytes: inside a `$files` read rule, or referenced by a row the caller reads; 404 otherwise. */
  async download(fileId: string): Promise<FileRecord> {
    const file = await findFile(this.em, this.projectId, fileId);
    if (!this.policy) return file;
    const { readable } = this.policy;
    if (readable === null || (await this.inside(readable, file)) || (await this.referencedByReadableRow(file.id))) return file;
    throw notFound('File');
  }

  /**
   * The file a replace, rename or delete addresses: 403 without a rule granting `action`, 404 when
   * unknown or (for a role with `$files` read rules) outside them, 403 when no rule granting
   * `action` holds it.
   */
  async address(fileId: string, action: Exclude<FileWrite, 'create'>): Promise<FileRecord> {
    const rules = this.granting(action);
    const file = await findFile(this.em, this.projectId, fileId);
    if (!rules) return file;
    const { readable } = this.policy!;
    if (this.policy!.grants.read.length > 0 && readable && !(await this.inside(readable, file))) throw notFound('File');
    if (!(await this.holding(rules, [file]))) throw this.outside(action);
    return file;
  }

  /**
   * The check of a file as a write leaves it (createFile and replaceFile run it on the upload):
   * one rule granting `action` must hold the file before (`before`, for a change) and after.
   * 403 at once, before anything is read, when no rule grants `action`. Null for built-in grants.
   */
  allow(action: FileWrite, before: FileFields | null = null): FileCheck | undefined {
    const rules = this.granting(action);
    if (!rules) return undefined;
    return async (after) => {
      if (!(await this.holding(rules, before ? [before, after] : [after]))) throw this.outside(action);
    };
  }

  /** The scope of the caller's list and metadata reads: null for built-in grants (every file). */
  private readScope(): FileScope | null {
    if (!this.policy) return null;
    if (this.policy.grants.read.length === 0) throw forbidden(`The role "${this.access.role!.name}" grants no read access to the file library (a "$files" rule)`);
    return this.policy.readable;
  }

  /** The custom role's rules granting `action` (403 when none); null for built-in grants. */
  private granting(action: FileWrite): FileRule[] | null {
    if (!this.policy) return null;
    const rules = this.policy.grants[action];
    if (rules.length === 0) throw forbidden(`The role "${this.access.role!.name}" cannot ${VERB[action]} files (no "$files" rule grants ${action})`);
    return rules;
  }

  private outside(action: FileWrite) {
    return forbidden(`The role "${this.access.role!.name}" cannot ${VERB[action]} this file: it is outside the files its "$files" rules allow`);
  }

  /** Whether one of `rules` holds every one of `files`. */
  private async holding(rules: FileRule[], files: FileFields[]): Promise<boolean> {
    for (const { where } of rules) {
      if (!where) return true;
      let all = true;
      for (const file of files) if (!(await this.inside(where, file))) all = false;
      if (all) return true;
    }
    return false;
  }

  private inside(scope: FileScope, file: FileFields): Promise<boolean> {
    return fileInside(this.em, scope, file);
  }

  /** Whether a readable file column of a row the caller reads holds `fileId`. */
  private async referencedByReadableRow(fileId: string): Promise<boolean> {
    const sources = await this.readableFileColumns();
    if (sources.length === 0) return false;
    const [row] = await runSql<{ referenced: boolean }>(this.em, fileReferencedByRows(fileId, sources));
    return row?.referenced === true;
  }

  /**
   * The rows the caller reads whose readable file columns hold `fileId` (docs/resources.md#where-a-file-is-used),
   * at most `limit`, newest first: what a row outside the caller's view holds is not told.
   */
  async usedBy(fileId: string, limit: number): Promise<FileReferrer[]> {
    const sources = await this.readableFileColumns();
    if (sources.length === 0) return [];
    return runSql<FileReferrer>(this.em, fileReferrerRows(fileId, sources, limit));
  }

  /** The caller's readable file columns and rows, per table with a file column. */
  private async readableFileColumns(): Promise<FileReferenceSource[]> {
    const sources: FileReferenceSource[] = [];
    for (const { id } of await runSql<{ id: string }>(this.em, tablesWithFileColumns(this.projectId))) {
      const table = await this.access.deps.tables.get(this.projectId, id);
      if (!table) continue;
      const policy = await this.access.policy(table);
      const columns = policy.view.columns.filter((c) => c.type === 'file');
      if (policy.grants.read.length === 0 || columns.length === 0) continue;
      sources.push({
        tableId: table.id,
        columns: columns.map((c) => ({ name: c.name, id: c.id, multiple: isMultiple(c) })),
        rows: policy.view.rows?.sql ?? null,
        drafts: policy.drafts,
      });
    }
    return sources;
  }
}

/** A row holding a file: its table, id, slug and status. */
export interface FileReferrer {
  tableId: string;
  id: string;
  slug: string | null;
  status: string;
}

/** The file rules of the caller of a request. */
export const fileRules = (access: ProjectAccess, em: EntityManager) => new FileRules(access, em);
