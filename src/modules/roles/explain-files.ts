import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../errors/app-error.js';
import type { FileRecord } from '../files/file.entity.js';
import type { Explanation } from './explain.js';
import { FILE_ACTIONS, fileInside, type FileRule, type FilesPolicy } from './files-policy.js';

/*
 * `GET .../access/explain?table=$files` (docs/roles.md#explain): what a caller may do with the
 * file library, and, with `contentsId` a file's id, with that file. A custom role's `$files` rules
 * decide, each counted only when its `where` holds the file; a built-in grant reads every file and
 * writes every file when its level writes (docs/roles.md#files). The console hides the upload,
 * replace and delete buttons a member could not use by it.
 */

/** Whose file rights are explained: a custom role's compiled `$files` rules, or a built-in grant's level. */
type Verdict = Explanation['actions']['read'];

export type FilesSubject = { policy: FilesPolicy } | { builtIn: { writes: boolean } };

export async function explainFiles(em: EntityManager, subject: FilesSubject, file: FileRecord | null): Promise<Explanation> {
  const none: Verdict = { allowed: false, rules: [] };
  if ('builtIn' in subject) {
    const write: Verdict = { allowed: subject.builtIn.writes, rules: [] };
    return { actions: { read: { allowed: true, rules: [] }, create: write, update: write, delete: write, publish: none }, fields: { read: [], write: [] } };
  }
  const { grants, readable } = subject.policy;
  // As on a read: a file outside the role's read rules is not there for it.
  if (file && grants.read.length > 0 && readable && !(await fileInside(em, readable, file))) throw notFound('File');
  const holding = async (rules: FileRule[]): Promise<Verdict> => {
    const held: number[] = [];
    for (const rule of rules) if (!file || !rule.where || (await fileInside(em, rule.where, file))) held.push(rule.index);
    return { allowed: held.length > 0, rules: held };
  };
  // One after the other: the checks that need the database share the request's connection.
  const verdicts: Verdict[] = [];
  for (const action of FILE_ACTIONS) verdicts.push(await holding(grants[action]));
  const [read, create, update, remove] = verdicts;
  return { actions: { read, create, update, delete: remove, publish: none }, fields: { read: [], write: [] } };
}
