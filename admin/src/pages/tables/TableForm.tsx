import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useApiMutation } from '../../data/api.js';
import { tableKeys } from '../../data/tables/keys.js';
import type { Table } from '../../data/tables/queries.js';
import { Button, SelectInput, TextAreaInput, TextInput } from '../../ui/controls.js';
import { ErrorBanner, ModalDialog } from '../../ui/feedback.js';
import { hasUnplaced, schemaErrors } from './errors.js';

export const STATUS_OPTIONS = [
  { id: 'PUBLISHED', label: 'Published' },
  { id: 'DRAFT', label: 'Draft' },
  { id: 'SCHEDULED', label: 'Scheduled' },
  { id: 'ARCHIVED', label: 'Archived' },
];

type Status = Table['defaultStatus'];
interface TableFields {
  key: string;
  name: string;
  description: string;
  defaultStatus: Status;
}

/** A key people would pick for a name: `Blog posts` → `blog_posts` (the key pattern of docs/contents.md#tables-and-columns). */
function keyFor(name: string): string {
  const key = name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^[^a-z]+|_+$/g, '');
  return key.slice(0, 63);
}

/** Creates a table, or edits one (`table`): name, key, description and the status of new rows. */
export function TableForm({ projectId, table, onClose, onSaved }: { projectId: string; table?: Table; onClose(): void; onSaved(table: Table): void }) {
  const [fields, setFields] = useState<TableFields>({
    key: table?.key ?? '',
    name: table?.name ?? '',
    description: table?.description ?? '',
    defaultStatus: table?.defaultStatus ?? 'PUBLISHED',
  });
  // A new table's key follows its name until someone types a key of their own.
  const [keyTouched, setKeyTouched] = useState(!!table);
  // A row's label in lists and pickers: set once the table has columns (docs/contents.md#tables-and-columns).
  const [display, setDisplay] = useState(table?.settings.display ?? '');
  const save = useApiMutation(
    (client, input: TableFields) =>
      table
        ? client.tables.update.mutate({ projectId, tableId: table.id, ...input, settings: { display: display.trim() === '' ? null : display.trim() } })
        : client.tables.create.mutate({ projectId, ...input }),
    [tableKeys.all(projectId)],
  );
  const errors = schemaErrors(save.error);
  // The only unique field of a table is its key; the 409 names no field.
  if (save.error && 'code' in save.error && save.error.code === 'CONFLICT' && !errors.key) errors.key = save.error.message;
  const set = (patch: Partial<TableFields>) => setFields((current) => ({ ...current, ...patch }));
  return (
    <ModalDialog title={table ? `Edit the table ${table.name}` : 'New table'} isOpen onClose={onClose}>
      <Form
        className="schema-form"
        // The API's refusals mark fields invalid; native validation would then block the next submit.
        validationBehavior="aria"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate(fields, { onSuccess: onSaved });
        }}
      >
        <TextInput
          label="Name"
          value={fields.name}
          onChange={(name) => set(keyTouched ? { name } : { name, key: keyFor(name) })}
          error={errors.name}
          isRequired
          autoFocus
        />
        <TextInput
          label="Key"
          value={fields.key}
          onChange={(key) => {
            setKeyTouched(true);
            set({ key });
          }}
          error={errors.key}
          description="Lower-case letters, digits and _, starting with a letter; it may stand for the table's id in API paths."
          isRequired
        />
        <TextAreaInput label="Description" value={fields.description} onChange={(description) => set({ description })} error={errors.description} rows={2} />
        <SelectInput
          label="Status of new rows"
          value={fields.defaultStatus}
          onChange={(defaultStatus) => set({ defaultStatus: defaultStatus as Status })}
          options={STATUS_OPTIONS}
          error={errors.defaultStatus}
          description="Given to rows created without a status."
        />
        {table && (
          <TextInput
            label="Row label"
            value={display}
            onChange={setDisplay}
            error={errors['settings.display']}
            description="What names a row in lists and pickers: a column name (title) or a template such as {{title}} ({{sku}}). Empty: the first text column."
          />
        )}
        {save.error !== null && hasUnplaced(errors, ['name', 'key', 'description', 'defaultStatus', 'settings.display']) && <ErrorBanner error={save.error} />}
        <div className="dialog-actions">
          <Button onPress={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" isDisabled={save.isPending}>
            {table ? 'Save table' : 'Create table'}
          </Button>
        </div>
      </Form>
    </ModalDialog>
  );
}
