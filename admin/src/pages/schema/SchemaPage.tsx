import { useState } from 'react';
import type { RouterInputs } from 'tabula/client';
import { useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { projectKeys } from '../../data/projects/keys.js';
import { useProjects } from '../../data/projects/queries.js';
import { useProject } from '../../data/projects/context.js';
import { Button, SelectInput } from '../../ui/controls.js';
import { Empty, ErrorBanner, PageHeader } from '../../ui/feedback.js';
import { PlanTable } from './PlanTable.js';
import { changeKey, type Change } from './plan.js';
import '../io/TableIo.css';

type Snapshot = RouterInputs['schema']['diff']['snapshot'];

interface Compared {
  sourceId: string;
  sourceName: string;
  snapshot: Snapshot;
  changes: Change[];
}

/**
 * Schema as code between projects (docs/environments.md): another project's schema is read
 * (`schema.pull`), compared with this one (`schema.diff`: the plan that makes this project's
 * schema that one), checked without changing anything (`dryRun`), then applied. Each
 * destructive change is confirmed by its own box, naming it, before the apply is offered.
 */
export function SchemaPage() {
  const { workspaceId, projectId } = useParams();
  const pid = projectId!;
  const here = useProject();
  const projects = useProjects(workspaceId);
  const others = (projects.data?.list ?? []).filter((p) => p.id !== pid);
  const [sourceId, setSourceId] = useState<string | null>(null);
  const [compared, setCompared] = useState<Compared | null>(null);
  const [confirmed, setConfirmed] = useState<Set<string>>(new Set());
  const [checked, setChecked] = useState<'passed' | null>(null);
  const [applied, setApplied] = useState<number | null>(null);

  const compare = useApiMutation(async (c, id: string) => {
    const snapshot = (await c.schema.pull.query({ projectId: id })) as Snapshot;
    const { changes } = await c.schema.diff.mutate({ projectId: pid, snapshot });
    return { snapshot, changes };
  });
  const apply = useApiMutation((c, dryRun: boolean) => c.schema.applySnapshot.mutate({ projectId: pid, snapshot: compared!.snapshot, dryRun, allowDestructive: destructive.length > 0 }), [projectKeys.all(pid)]);

  const run = async (id: string) => {
    setApplied(null);
    setChecked(null);
    setConfirmed(new Set());
    apply.reset();
    const result = await compare.mutateAsync(id).catch(() => null);
    setCompared(result ? { sourceId: id, sourceName: others.find((p) => p.id === id)?.name ?? id, ...result } : null);
  };
  const destructive = (compared?.changes ?? []).flatMap((change, index) => (change.destructive ? [changeKey(change, index)] : []));
  const allConfirmed = destructive.every((key) => confirmed.has(key));

  const dryRun = async () => {
    setChecked(null);
    await apply.mutateAsync(true).then(() => setChecked('passed'), () => undefined);
  };
  const applyNow = async () => {
    const result = await apply.mutateAsync(false).catch(() => null);
    if (!result) return;
    setApplied(result.changes.length);
    // What is left to do: nothing, when the apply went through.
    await run(compared!.sourceId);
    setApplied(result.changes.length);
  };

  return (
    <>
      <PageHeader title="Schema" />
      <p className="muted">
        Make the tables, columns and roles of <strong>{here.name}</strong> those of another project of this workspace: compare, check, then apply.
      </p>
      <div className="toolbar">
        {others.length > 0 ? (
          <SelectInput label="Compare with project" value={sourceId} placeholder="Choose a project" options={others.map((p) => ({ id: p.id, label: p.name }))} onChange={setSourceId} />
        ) : (
          projects.data && <Empty>This workspace has no other project to compare with.</Empty>
        )}
        <Button variant="primary" isDisabled={!sourceId || compare.isPending} onPress={() => sourceId && void run(sourceId)}>
          {compare.isPending ? 'Comparing…' : 'Compare'}
        </Button>
      </div>
      <ErrorBanner error={projects.error ?? compare.error} />
      {applied !== null && (
        <p role="status" className="banner banner-ok">
          Applied {applied} {applied === 1 ? 'change' : 'changes'}.
        </p>
      )}
      {compared && (
        <section aria-labelledby="plan-heading">
          <h2 id="plan-heading">
            From {here.name} to the schema of {compared.sourceName}
          </h2>
          {compared.changes.length === 0 ? (
            <Empty>Nothing to change: the schemas are the same.</Empty>
          ) : (
            <>
              <p>
                {compared.changes.length} {compared.changes.length === 1 ? 'change' : 'changes'}
                {destructive.length > 0 && `, ${destructive.length} destructive: confirm each one below`}.
              </p>
              <PlanTable
                changes={compared.changes}
                confirmed={confirmed}
                onConfirm={(key, value) => {
                  setChecked(null);
                  setConfirmed((current) => {
                    const next = new Set(current);
                    if (value) next.add(key);
                    else next.delete(key);
                    return next;
                  });
                }}
              />
              <ErrorBanner error={apply.error} />
              {checked === 'passed' && (
                <p role="status" className="banner banner-ok">
                  Dry run passed: the stored rows fit every change. Nothing was changed yet.
                </p>
              )}
              <div className="toolbar">
                <Button isDisabled={!allConfirmed || apply.isPending} onPress={() => void dryRun()}>
                  Dry run
                </Button>
                <Button variant="danger" isDisabled={!allConfirmed || checked !== 'passed' || apply.isPending} onPress={() => void applyNow()}>
                  {apply.isPending ? 'Working…' : `Apply ${compared.changes.length} ${compared.changes.length === 1 ? 'change' : 'changes'}`}
                </Button>
              </div>
              {!allConfirmed && <p className="muted">Confirm every destructive change to run the dry run and apply.</p>}
            </>
          )}
        </section>
      )}
    </>
  );
}
