import { useState } from 'react';
import type { ContentRow } from '../../data/contents/queries.js';
import { Button } from '../../ui/controls.js';
import { LineInput } from './inputs.js';
import { fromLocalInput, toLocalInput } from './values.js';

type Status = NonNullable<ContentRow['status']>;

/** The status changes each status allows (docs/contents.md#statuses), as the buttons that make them. */
const ACTIONS: Record<Status, { to: Status; label: string }[]> = {
  DRAFT: [
    { to: 'PUBLISHED', label: 'Publish' },
    { to: 'ARCHIVED', label: 'Archive' },
  ],
  SCHEDULED: [
    { to: 'PUBLISHED', label: 'Publish now' },
    { to: 'DRAFT', label: 'Cancel schedule' },
  ],
  PUBLISHED: [
    { to: 'DRAFT', label: 'Unpublish' },
    { to: 'ARCHIVED', label: 'Archive' },
  ],
  ARCHIVED: [{ to: 'DRAFT', label: 'Back to draft' }],
};

export const STATUS_NAMES: Record<Status, string> = { DRAFT: 'Draft', SCHEDULED: 'Scheduled', PUBLISHED: 'Published', ARCHIVED: 'Archived' };

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : null);

export interface StatusChange {
  status: Status;
  publishAt?: string | null;
}

/**
 * A row's status and its changes (docs/contents.md#statuses), scheduling included: a scheduled row is published
 * by the API's worker at `publishAt`. Changes are disabled while the form has unsaved edits, so
 * that a status change never publishes values the person has not saved.
 */
export function StatusPanel({ row, isDirty, busy, publishAtError, onChange }: {
  row: ContentRow;
  isDirty: boolean;
  busy: boolean;
  publishAtError?: string;
  onChange(change: StatusChange): Promise<unknown>;
}) {
  const status = row.status ?? 'DRAFT';
  const [publishAt, setPublishAt] = useState(() => toLocalInput(row.publishAt));
  const canSchedule = status === 'DRAFT' || status === 'SCHEDULED';
  const disabled = isDirty || busy;
  return (
    <section className="card stack editor-status" aria-labelledby="status-heading">
      <h2 id="status-heading">Status</h2>
      <p className="row">
        <span className={`badge badge-${status.toLowerCase()}`}>{STATUS_NAMES[status]}</span>
        {status === 'SCHEDULED' && row.publishAt && <span>publishes {when(row.publishAt)}</span>}
        {status === 'PUBLISHED' && row.publishedAt && <span className="muted">since {when(row.publishedAt)}</span>}
      </p>
      {isDirty && <p className="muted">Save or reset your changes to change the status.</p>}
      <div className="row">
        {ACTIONS[status].map((action) => (
          <Button key={action.to} variant={action.to === 'PUBLISHED' ? 'primary' : 'secondary'} isDisabled={disabled} onPress={() => void onChange({ status: action.to })}>
            {action.label}
          </Button>
        ))}
      </div>
      {canSchedule && (
        <form
          className="stack editor-schedule"
          onSubmit={(event) => {
            event.preventDefault();
            void onChange({ status: 'SCHEDULED', publishAt: fromLocalInput(publishAt) });
          }}
        >
          <LineInput label="Publish at" type="datetime-local" value={publishAt} onChange={setPublishAt} error={publishAtError} description="Your local time; the row goes live then." />
          <div>
            <Button type="submit" isDisabled={disabled || publishAt === ''}>
              {status === 'SCHEDULED' ? 'Reschedule' : 'Schedule'}
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
