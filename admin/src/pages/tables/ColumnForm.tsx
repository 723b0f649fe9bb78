import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useApiMutation } from '../../data/api.js';
import type { Column } from '../../data/columns/queries.js';
import { contentsKeys } from '../../data/contents/keys.js';
import { useProject } from '../../data/projects/context.js';
import { tableKeys } from '../../data/tables/keys.js';
import type { Table } from '../../data/tables/queries.js';
import { Button, SelectInput, TextInput } from '../../ui/controls.js';
import { ErrorBanner, ModalDialog } from '../../ui/feedback.js';
import { COLUMN_TYPES, NEW_COLUMN, TYPE_OPTIONS, draftOf, settingsPatch, toSettings, uniqueApplies, type ColumnDraft, type ColumnType } from './column-types.js';
import { DefaultValueInput, SettingInputs } from './ColumnSettings.js';
import { hasUnplaced, schemaErrors } from './errors.js';
import { CheckField } from './CheckField.js';

interface ColumnWrite {
  name: string;
  label: string;
  type: ColumnType;
  settings: Record<string, unknown>;
}

/**
 * Adds a column to a table, or edits one (`column`): its name, label and type, and the settings
 * that apply to the chosen type (docs/contents.md#tables-and-columns). Each refusal of the API stands at its field.
 */
export function ColumnForm({ projectId, table, column, columns, tables, onClose }: {
  projectId: string;
  table: Table;
  column?: Column;
  /** The table's columns: a slug's source is one of its text columns. */
  columns: Column[];
  /** The project's tables: a reference's target is one of them. */
  tables: Table[];
  onClose(): void;
}) {
  const project = useProject();
  const [draft, setDraft] = useState<ColumnDraft>(column ? draftOf(column) : NEW_COLUMN);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const save = useApiMutation(
    (client, input: ColumnWrite) =>
      column
        ? client.columns.update.mutate({ projectId, tableId: table.id, columnId: column.id, ...input, settings: settingsPatch(column.settings, input.settings) })
        : client.columns.create.mutate({ projectId, tableId: table.id, ...input }),
    [tableKeys.all(projectId), contentsKeys.table(projectId, table.id)],
  );
  const errors = { ...schemaErrors(save.error), ...localErrors };
  const set = (patch: Partial<ColumnDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const shown = ['name', 'label', 'type', 'settings.required', 'settings.defaultValue', ...COLUMN_TYPES[draft.type].settings.map((s) => `settings.${s}`)];
  if (uniqueApplies(draft)) shown.push('settings.unique');
  const typeLabel = COLUMN_TYPES[draft.type].label.toLowerCase();
  return (
    <ModalDialog title={column ? `Edit the column ${column.name}` : `New column of ${table.name}`} isOpen onClose={onClose}>
      <Form
        className="schema-form"
        // The API's refusals mark fields invalid; native validation would then block the next submit.
        validationBehavior="aria"
        onSubmit={(event) => {
          event.preventDefault();
          const { settings, errors: invalid } = toSettings(draft);
          setLocalErrors(invalid);
          if (Object.keys(invalid).length > 0) return;
          save.mutate({ name: draft.name, label: draft.label.trim() || draft.name, type: draft.type, settings }, { onSuccess: onClose });
        }}
      >
        <div className="column-form-grid">
          <TextInput
            label="Name"
            value={draft.name}
            onChange={(name) => set({ name })}
            error={errors.name}
            description="The key in the API's data: a letter, then letters, digits or _."
            isRequired
            autoFocus
          />
          <TextInput label="Label" value={draft.label} onChange={(label) => set({ label })} error={errors.label} description="What editors read; the name when empty." />
        </div>
        <SelectInput label="Type" value={draft.type} onChange={(type) => set({ type: type as ColumnType })} options={TYPE_OPTIONS} error={errors.type} />
        <fieldset className="column-settings">
          <legend>Settings of {typeLabel} columns</legend>
          <SettingInputs draft={draft} set={set} errors={errors} columns={columns.filter((c) => c.id !== column?.id)} tables={tables} locales={project.locales} />
          <div className="row">
            <CheckField label="Required" value={draft.required} onChange={(required) => set({ required })} error={errors['settings.required']} />
            {uniqueApplies(draft) && <CheckField label="Unique" value={draft.unique} onChange={(unique) => set({ unique })} error={errors['settings.unique']} />}
          </div>
          <DefaultValueInput draft={draft} set={set} error={errors['settings.defaultValue']} defaultLocale={project.defaultLocale} />
        </fieldset>
        {save.error !== null && hasUnplaced(errors, shown) && <ErrorBanner error={save.error} />}
        <div className="dialog-actions">
          <Button onPress={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" isDisabled={save.isPending}>
            {column ? 'Save column' : 'Add column'}
          </Button>
        </div>
      </Form>
    </ModalDialog>
  );
}
