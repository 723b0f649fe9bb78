import { errorText, fieldErrors } from '../../data/errors.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import type { DiffColumn } from './diff.js';

/**
 * Asks before a restore, and says why one failed: a 422 or 409 names the columns whose old value
 * no longer passes today's rules (a column made required or unique since), by their labels.
 */
export function RestoreDialog({
  version,
  toDraft,
  isOpen,
  isPending,
  error,
  columns,
  onConfirm,
  onClose,
}: {
  version: number;
  /** Into the pending draft of a published row, the live values left as they are. */
  toDraft: boolean;
  isOpen: boolean;
  isPending: boolean;
  error: unknown;
  columns: DiffColumn[];
  onConfirm(): void;
  onClose(): void;
}) {
  const byField = Object.entries(fieldErrors(error));
  const label = (field: string) => {
    const name = field.replace(/^data\./, '').split('.')[0];
    return columns.find((column) => column.name === name)?.label ?? field;
  };
  return (
    <ConfirmDialog
      title={toDraft ? `Restore version ${version} into the draft?` : `Restore version ${version}?`}
      isOpen={isOpen}
      confirmLabel={`Restore version ${version}`}
      pendingLabel="Restoring…"
      confirmVariant="primary"
      isPending={isPending}
      onConfirm={onConfirm}
      onClose={onClose}
    >
      {toDraft ? (
        <p>
          The row’s draft takes the values of version {version} (columns removed since are left out), checked against the
          table’s rules of today; a draft in progress is replaced. The published version stays live until the draft is
          published.
        </p>
      ) : (
        <p>
          All of the row’s values are replaced by those of version {version} (columns removed since are left out), checked
          against the table’s rules of today. Its status stays as it is. The restore is recorded as a new version, so it can be
          undone the same way.
        </p>
      )}
      {error !== null && error !== undefined && (
        <div role="alert" className="banner banner-error">
          {byField.length > 0 ? (
            <>
              Version {version} does not fit the table’s rules any more:
              <ul>
                {byField.map(([field, message]) => (
                  <li key={field}>
                    {label(field)}: {message}
                  </li>
                ))}
              </ul>
            </>
          ) : (
            errorText(error)
          )}
        </div>
      )}
    </ConfirmDialog>
  );
}
