import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { contentsKeys } from '../../data/contents/keys.js';
import { errorText } from '../../data/errors.js';
import { releasesKeys } from '../../data/releases/keys.js';
import { useReleases } from '../../data/releases/queries.js';
import { useClient } from '../../data/session/session.js';
import { Button, SelectInput, TextInput } from '../../ui/controls.js';
import { ModalDialog } from '../../ui/feedback.js';
import { ACTION_NAMES, runBounded, runInChunks, STATUS_OF, summarize, type BulkAction, type BulkOutcome } from './bulk.js';

const NEW_RELEASE = '__new__';

interface Props {
  projectId: string;
  tableId: string;
  selected: string[];
  /** The selected rows' statuses where known (the rows of the page shown). */
  statusOf(id: string): string | null | undefined;
  labelOf(id: string): string;
  onClear(): void;
}

type Phase = { step: 'confirm' } | { step: 'running'; done: number } | { step: 'done'; outcomes: BulkOutcome[]; ms: number };

/**
 * The bar over a list with selected rows: publish, unpublish, archive, delete, add to a release.
 * Each asks first with a summary of what will happen, then shows the progress and a result per
 * row (docs/console.md#bulk-actions).
 */
export function BulkActions({ projectId, tableId, selected, statusOf, labelOf, onClear }: Props) {
  const client = useClient();
  const queries = useQueryClient();
  const [action, setAction] = useState<BulkAction | null>(null);
  const [phase, setPhase] = useState<Phase>({ step: 'confirm' });
  const [releaseId, setReleaseId] = useState<string>(NEW_RELEASE);
  const [releaseName, setReleaseName] = useState('');
  const releases = useReleases(projectId, 1, 100);
  const open = (releases.data?.list ?? []).filter((r) => r.status === 'open');

  const known = selected.filter((id) => statusOf(id) !== undefined).map((id) => ({ id, status: statusOf(id) }));
  const start = (chosen: BulkAction) => {
    setAction(chosen);
    setPhase({ step: 'confirm' });
  };
  const close = () => {
    const finished = phase.step === 'done';
    setAction(null);
    setPhase({ step: 'confirm' });
    if (finished) onClear();
  };

  const run = async () => {
    if (!action) return;
    const began = performance.now();
    setPhase({ step: 'running', done: 0 });
    let release = releaseId;
    if (action === 'release' && release === NEW_RELEASE) {
      release = (await client.releases.create.mutate({ projectId, name: releaseName.trim() || `Release of ${selected.length} rows` })).id;
      setReleaseId(release);
    }
    const work = (contentsId: string): Promise<unknown> => {
      return action === 'delete'
        ? client.contents.delete.mutate({ projectId, tableId, contentsId })
        : client.releases.addItem.mutate({ projectId, releaseId: release, tableId, contentsId, action: 'publish' });
    };
    // Progress is drawn at most once a frame: 1,000 rows must not mean 1,000 renders.
    let frame = 0;
    const progress = (done: number) => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setPhase((p) => (p.step === 'running' ? { step: 'running', done } : p));
      });
    };
    const status = STATUS_OF[action];
    // A status change goes in chunks of rows, one request and one transaction each (contents.setStatus);
    // a delete or a release's item row by row.
    const outcomes = status
      ? await runInChunks(selected, (ids) => client.contents.setStatus.mutate({ projectId, tableId, ids, status }).then((answer) => answer.results), progress, errorText)
      : await runBounded(selected, work, progress, errorText);
    cancelAnimationFrame(frame);
    setPhase({ step: 'done', outcomes, ms: Math.round(performance.now() - began) });
    await queries.invalidateQueries({ queryKey: contentsKeys.table(projectId, tableId) });
    if (action === 'release') await queries.invalidateQueries({ queryKey: releasesKeys.all(projectId) });
  };

  const failed = phase.step === 'done' ? phase.outcomes.filter((o) => !o.ok).length : 0;
  return (
    <div className="toolbar bulk-bar" role="region" aria-label="Selected rows">
      <span aria-live="polite">{selected.length === 1 ? '1 row selected' : `${selected.length} rows selected`}</span>
      {(Object.keys(ACTION_NAMES) as BulkAction[]).map((a) => (
        <Button key={a} variant={a === 'delete' ? 'danger' : 'secondary'} onPress={() => start(a)}>
          {`${ACTION_NAMES[a]}…`}
        </Button>
      ))}
      <Button variant="ghost" onPress={onClear}>
        Clear selection
      </Button>
      <ModalDialog title={action ? `${ACTION_NAMES[action]}: ${selected.length === 1 ? '1 row' : `${selected.length} rows`}` : ''} isOpen={action !== null} onClose={close} role="dialog">
        {action && phase.step === 'confirm' && (
          <div className="stack">
            <ul className="bulk-summary">
              {summarize(action, known, selected.length - known.length).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
            {action === 'release' && (
              <>
                <SelectInput
                  label="Release"
                  value={releaseId}
                  onChange={setReleaseId}
                  options={[{ id: NEW_RELEASE, label: 'A new release' }, ...open.map((r) => ({ id: r.id, label: r.name }))]}
                />
                {releaseId === NEW_RELEASE && <TextInput label="New release name" value={releaseName} onChange={setReleaseName} />}
              </>
            )}
            <div className="dialog-actions">
              <Button autoFocus onPress={close}>
                Cancel
              </Button>
              <Button variant={action === 'delete' ? 'danger' : 'primary'} onPress={() => void run()}>
                {`${ACTION_NAMES[action]} ${selected.length === 1 ? '1 row' : `${selected.length} rows`}`}
              </Button>
            </div>
          </div>
        )}
        {phase.step === 'running' && (
          <div className="stack">
            <progress max={selected.length} value={phase.done} aria-label="Progress" />
            <p role="status">{`${phase.done} of ${selected.length} done…`}</p>
          </div>
        )}
        {phase.step === 'done' && (
          <div className="stack">
            <p role="status" className={failed ? 'banner banner-warn' : 'banner banner-ok'} data-ms={phase.ms}>
              {`${phase.outcomes.length - failed} done, ${failed} failed.`}
            </p>
            <ul className="bulk-results" aria-label="Result per row">
              {phase.outcomes.map((o) => (
                <li key={o.id} className={o.ok ? 'bulk-ok' : 'bulk-failed'}>
                  <span className="bulk-row">{labelOf(o.id)}</span>: {o.ok ? 'done' : o.message}
                </li>
              ))}
            </ul>
            <div className="dialog-actions">
              <Button autoFocus variant="primary" onPress={close}>
                Close
              </Button>
            </div>
          </div>
        )}
      </ModalDialog>
    </div>
  );
}
