import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { runSql } from '../../db/sql.js';
import { conflict, validationError } from '../../errors/app-error.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import { runPlan } from './apply.js';
import { checkRows } from './checks.js';
import { planChanges, toWire, type PlannedChange } from './plan.js';
import type { Change, Snapshot } from './schema.schema.js';
import { lockProjectSchema } from './schema.sql.js';
import { checkSnapshot } from './snapshot-rules.js';
import { readSchema } from './snapshot.js';

/** Schema as code (docs/environments.md): pull a snapshot, diff one against a project, apply it. */

export async function pullSchema(em: EntityManager, project: ProjectInfo): Promise<Snapshot> {
  return (await readSchema(em, project)).snapshot;
}

function refuseMalformed(target: Snapshot, project: ProjectInfo): void {
  const details = checkSnapshot(target, project);
  if (details.length > 0) throw validationError(details);
}

/** The plan, with the rows each destructive change concerns; what the rows refuse is apply's to say. */
export async function diffSchema(em: EntityManager, project: ProjectInfo, target: Snapshot): Promise<Change[]> {
  refuseMalformed(target, project);
  const current = await readSchema(em, project);
  const changes = planChanges(current.snapshot, target);
  await checkRows(em, project, current, changes);
  return toWire(changes);
}

const described = (c: Change) =>
  `${c.op} ${[c.table, c.column, c.role].filter((x) => x !== undefined).join('.')}${c.rows !== undefined ? ` (${c.rows} row${c.rows === 1 ? '' : 's'})` : ''}`;

/** 409 naming every destructive change (docs/environments.md#applying); 409s carry no details (docs/reliability.md#errors). */
const destructiveRefused = (changes: Change[]) =>
  conflict(`The plan holds destructive changes; apply with allowDestructive to make them: ${changes.map(described).join(', ')}`);

/** Rolls a dry run's transaction back once every step has run. */
class DryRun extends Error {
  constructor(readonly changes: PlannedChange[]) {
    super('dry run');
  }
}

export interface ApplyOptions {
  allowDestructive?: boolean;
  dryRun?: boolean;
}

/**
 * Applies the plan in one transaction: the stored rows are checked first (422), destructive
 * changes need `allowDestructive` (409), and then every change runs through its service. A dry
 * run does all of it and rolls back. One apply per project at a time.
 */
export async function applySchema(em: EntityManager, boss: PgBoss, project: ProjectInfo, target: Snapshot, options: ApplyOptions = {}): Promise<Change[]> {
  refuseMalformed(target, project);
  try {
    const changes = await em.transactional(async (tx) => {
      await runSql(tx, lockProjectSchema(project.id));
      const current = await readSchema(tx, project);
      const planned = planChanges(current.snapshot, target);
      const details = await checkRows(tx, project, current, planned);
      if (details.length > 0) throw validationError(details);
      const destructive = planned.filter((c) => c.destructive);
      if (destructive.length > 0 && !options.allowDestructive) throw destructiveRefused(toWire(destructive));
      await runPlan(tx, boss, project, current, planned, target);
      if (options.dryRun) throw new DryRun(planned);
      return planned;
    });
    return toWire(changes);
  } catch (error) {
    if (error instanceof DryRun) return toWire(error.changes);
    throw error;
  }
}
