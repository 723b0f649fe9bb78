import { useId, useState } from 'react';
import { Label, Radio, RadioGroup } from 'react-aria-components';
import { TabulaError } from 'tabula/client';
import { useApiMutation } from '../../data/api.js';
import { contentsKeys } from '../../data/contents/keys.js';
import { useProject } from '../../data/projects/context.js';
import type { RowRef } from '../../data/revisions/keys.js';
import { useCurrentRow, useRevision, type Revision } from '../../data/revisions/queries.js';
import { Button } from '../../ui/controls.js';
import { ErrorBanner, Loading } from '../../ui/feedback.js';
import { diffRows, type DiffColumn, type Snapshot } from './diff.js';
import { useDiffNames } from './names.js';
import { DiffView } from './DiffView.js';
import { RestoreDialog } from './RestoreDialog.js';
import { statusLabel } from './summary.js';

export type Compare = 'previous' | 'current';

/**
 * One revision: what it changed against the version before it, or what restoring it would change
 * in the row as it is now, and the restore itself (asked for in a dialog).
 */
export function RevisionDetail({
  row,
  columns,
  revision,
  known,
  compare,
  onCompare,
  toDraft,
  onRestored,
}: {
  row: RowRef;
  columns: DiffColumn[];
  revision: Revision;
  /** The revisions of the list's page: the version before is taken from there when it is on it. */
  known: Revision[];
  compare: Compare;
  onCompare(compare: Compare): void;
  /** The editor saves into the draft of a published row: a restore goes there too (docs/console.md). */
  toDraft: boolean;
  onRestored(version: number): void;
}) {
  const project = useProject();
  const headingId = useId();
  const [confirming, setConfirming] = useState(false);
  const before = revision.version - 1;
  const onPage = known.find((r) => r.version === before);
  const previous = useRevision(row, before, compare === 'previous' && before >= 1 && !onPage);
  // What a restore replaces: the live row, or the draft (the live row with its draft applied).
  const current = useCurrentRow(row, compare === 'current', toDraft);
  const restore = useApiMutation(
    (client, input: { version: number; draft: boolean }) =>
      client.revisions.restore.mutate({ projectId: row.projectId, tableId: row.tableId, contentsId: row.contentId, version: String(input.version), draft: input.draft || undefined }),
    [contentsKeys.table(row.projectId, row.tableId)],
  );

  // The side the revision is compared with: null is "nothing before" (version 1), undefined "not read yet".
  const base: Snapshot | null | undefined =
    compare === 'previous' ? (before < 1 ? null : (onPage ?? previous.data)) : current.data && { status: current.data.status ?? '', data: current.data.data ?? {} };
  const baseError = compare === 'previous' ? previous.error : current.error;
  const locales = { locales: project.locales, defaultLocale: project.defaultLocale };
  const names = useDiffNames(columns, [base, revision]);
  const confirm = () =>
    restore.mutate({ version: revision.version, draft: toDraft }, {
      onSuccess: () => {
        setConfirming(false);
        onRestored(revision.version);
      },
    });

  return (
    <section className="revision-detail" aria-labelledby={headingId}>
      <div className="revision-detail-head">
        <h3 id={headingId}>Version {revision.version}</h3>
        <Button
          variant="primary"
          onPress={() => {
            restore.reset();
            setConfirming(true);
          }}
        >
          Restore this version
        </Button>
      </div>
      <RadioGroup className="revision-compare" value={compare} onChange={(value) => onCompare(value as Compare)} orientation="horizontal">
        <Label>Compare with</Label>
        <div className="revision-compare-options">
          <Radio value="previous" className="revision-radio">
            {before >= 1 ? `Version ${before} (the one before)` : 'Nothing (the first version)'}
          </Radio>
          <Radio value="current" className="revision-radio">
            The current row
          </Radio>
        </div>
      </RadioGroup>
      {compare === 'current' && current.data && (
        <p className="muted">
          {toDraft
            ? `What restoring version ${revision.version} into the draft would change in it. The published version stays live.`
            : `What restoring version ${revision.version} would change. The status stays ${statusLabel(current.data.status ?? '')}.`}
        </p>
      )}
      {baseError ? (
        compare === 'previous' && baseError instanceof TabulaError && baseError.code === 'NOT_FOUND' ? (
          // The version before may have been purged (only the newest revisions of a row are kept, docs/contents.md#revisions).
          <p className="banner banner-warn">Version {before} is no longer kept (only the newest versions of a row are). Compare with the current row instead.</p>
        ) : (
          <ErrorBanner error={baseError} />
        )
      ) : base === undefined ? (
        <Loading label="Loading the version to compare…" />
      ) : (
        <DiffView
          diff={diffRows(columns, base, revision, locales, names)}
          beforeLabel={compare === 'current' ? (toDraft ? 'Draft' : 'Now') : before >= 1 ? `Version ${before}` : 'Before'}
          afterLabel={`Version ${revision.version}`}
          showStatus={compare === 'previous'}
        />
      )}
      <RestoreDialog
        version={revision.version}
        toDraft={toDraft}
        isOpen={confirming}
        isPending={restore.isPending}
        error={restore.error}
        columns={columns}
        onConfirm={confirm}
        onClose={() => setConfirming(false)}
      />
    </section>
  );
}
