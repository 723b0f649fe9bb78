import type { Column } from '../../data/columns/queries.js';
import { Button } from '../../ui/controls.js';
import { ModalDialog } from '../../ui/feedback.js';
import type { FieldValue, FormValues } from './values.js';

/*
 * A save refused with 412 (docs/contents.md#concurrent-edits): the row was changed by someone
 * else since this form was opened. Per edited field, what is saved now ("theirs") beside what
 * this form would save ("yours"); the person reloads theirs (dropping the edits) or overwrites
 * (the same edits sent again over the new version).
 */

export interface Conflict {
  version: number;
  theirs: FormValues;
}

const shown = (value: FieldValue | undefined): string => {
  if (value === null || value === undefined || value === '') return '(empty)';
  if (typeof value === 'string') return value.length > 300 ? `${value.slice(0, 300)}…` : value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.join(', ') || '(empty)';
  return Object.entries(value).map(([locale, text]) => `${locale}: ${text || '(empty)'}`).join('\n');
};

export function ConflictDialog({ conflict, columns, edits, busy, onReload, onOverwrite, onClose }: {
  conflict: Conflict | null;
  columns: Column[];
  edits: FormValues;
  busy: boolean;
  onReload(): void;
  onOverwrite(): void;
  onClose(): void;
}) {
  const edited = columns.filter((c) => c.name in edits);
  return (
    <ModalDialog title="Changed by someone else" role="alertdialog" isOpen={conflict !== null} onClose={onClose}>
      <div className="stack">
        <p>
          This row was changed by someone else since you opened it (it is at version {conflict?.version} now). Your changes are not saved yet.
        </p>
        <table className="conflict-diff">
          <caption className="visually-hidden">Your changes beside the saved values</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Theirs (saved)</th>
              <th scope="col">Yours (not saved)</th>
            </tr>
          </thead>
          <tbody>
            {edited.map((column) => {
              const theirs = shown(conflict?.theirs[column.name]);
              const yours = shown(edits[column.name]);
              return (
                <tr key={column.id} data-field={column.name}>
                  <th scope="row">{column.label || column.name}</th>
                  <td className={theirs === yours ? undefined : 'conflict-theirs'}>{theirs}</td>
                  <td className={theirs === yours ? undefined : 'conflict-yours'}>{yours}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <p className="muted">Reload shows their version and drops your changes; overwrite saves yours over theirs.</p>
      </div>
      <div className="dialog-actions">
        <Button autoFocus onPress={onClose}>Keep editing</Button>
        <Button isDisabled={busy} onPress={onReload}>Reload theirs</Button>
        <Button variant="danger" isDisabled={busy} onPress={onOverwrite}>Overwrite with mine</Button>
      </div>
    </ModalDialog>
  );
}
