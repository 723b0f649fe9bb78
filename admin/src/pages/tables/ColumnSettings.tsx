import type { Column } from '../../data/columns/queries.js';
import type { Table } from '../../data/tables/queries.js';
import { SelectInput, TextAreaInput, TextInput } from '../../ui/controls.js';
import { CheckField } from './CheckField.js';
import { COLUMN_TYPES, ON_DELETE_OPTIONS, type ColumnDraft, type OnDelete } from './column-types.js';

/** The "nothing chosen" entry of a picker (a select's keys are strings; column names and ids never take this one). */
const NONE = '__none__';

interface SettingProps {
  draft: ColumnDraft;
  set(patch: Partial<ColumnDraft>): void;
  errors: Record<string, string>;
  columns: Column[];
  tables: Table[];
  locales: string[];
}

/** The inputs of the settings that apply to the draft's type (docs/contents.md#tables-and-columns), in the API's order. */
export function SettingInputs({ draft, set, errors, columns, tables, locales }: SettingProps) {
  const applies = COLUMN_TYPES[draft.type].settings;
  const has = (setting: (typeof applies)[number]) => applies.includes(setting);
  const error = (setting: string) => errors[`settings.${setting}`];
  return (
    <>
      {has('minText') && (
        <div className="column-form-grid">
          <TextInput label="Minimum length" value={draft.minText} onChange={(minText) => set({ minText })} error={error('minText')} description="In characters." />
          <TextInput label="Maximum length" value={draft.maxText} onChange={(maxText) => set({ maxText })} error={error('maxText')} description="In characters." />
        </div>
      )}
      {has('min') && (
        <div className="column-form-grid">
          <TextInput label="Minimum" value={draft.min} onChange={(min) => set({ min })} error={error('min')} />
          <TextInput label="Maximum" value={draft.max} onChange={(max) => set({ max })} error={error('max')} />
        </div>
      )}
      {has('pattern') && (
        <TextInput label="Pattern" value={draft.pattern} onChange={(pattern) => set({ pattern })} error={error('pattern')} description="A regular expression the whole value must match." />
      )}
      {has('options') && (
        <TextAreaInput label="Options" value={draft.options} onChange={(options) => set({ options })} error={error('options')} description="One option a line." rows={4} isRequired />
      )}
      {has('table') && (
        <div className="column-form-grid">
          <SelectInput
            label="Referenced table"
            value={draft.table || null}
            onChange={(table) => set({ table })}
            options={tables.map((t) => ({ id: t.id, label: t.name }))}
            placeholder="Choose a table"
            error={error('table')}
            isRequired
          />
          <SelectInput
            label="When a referenced row is deleted"
            value={draft.onDelete}
            onChange={(onDelete) => set({ onDelete: onDelete as OnDelete })}
            options={ON_DELETE_OPTIONS}
            error={error('onDelete')}
          />
        </div>
      )}
      {has('source') && (
        <SelectInput
          label="Derived from"
          value={draft.source || NONE}
          onChange={(source) => set({ source: source === NONE ? '' : source })}
          options={[{ id: NONE, label: 'Nothing (typed by hand)' }, ...columns.filter((c) => c.type === 'text').map((c) => ({ id: c.name, label: `${c.label} (${c.name})` }))]}
          error={error('source')}
          description="A text column a missing slug is made from."
        />
      )}
      <div className="row">
        {has('localized') && (
          <CheckField label={`Localized (a value for each of ${locales.join(', ')})`} value={draft.localized} onChange={(localized) => set({ localized })} error={error('localized')} />
        )}
        {has('multiple') && <CheckField label="Multiple values" value={draft.multiple} onChange={(multiple) => set({ multiple })} error={error('multiple')} />}
      </div>
    </>
  );
}

const HINTS: Partial<Record<ColumnDraft['type'], string>> = {
  date: 'YYYY-MM-DD',
  datetime: 'ISO-8601 with an offset, e.g. 2026-01-31T09:00:00Z',
  json: 'Any JSON value',
  reference: 'The id of a row of the referenced table',
  file: 'The id of a file',
};

/** The default value, in an input that fits the type; existing rows take it when the column is added. */
export function DefaultValueInput({ draft, set, error, defaultLocale }: { draft: ColumnDraft; set(patch: Partial<ColumnDraft>): void; error?: string; defaultLocale: string }) {
  const label = 'Default value';
  const onChange = (defaultValue: string) => set({ defaultValue: defaultValue === NONE ? '' : defaultValue });
  const value = draft.defaultValue || NONE;
  if (draft.type === 'boolean') {
    const options = [{ id: NONE, label: 'None' }, { id: 'true', label: 'Yes (true)' }, { id: 'false', label: 'No (false)' }];
    return <SelectInput label={label} value={value} onChange={onChange} options={options} error={error} />;
  }
  const options = draft.options.split('\n').map((o) => o.trim()).filter(Boolean);
  if (draft.type === 'select' && !draft.multiple && options.length > 0) {
    // An option typed by hand and then removed from the list is kept, so that the API says why it is wrong.
    const choices = [...new Set([...options, ...(draft.defaultValue ? [draft.defaultValue] : [])])];
    return <SelectInput label={label} value={value} onChange={onChange} options={[{ id: NONE, label: 'None' }, ...choices.map((o) => ({ id: o, label: o }))]} error={error} />;
  }
  if (draft.type === 'json') return <TextAreaInput label={label} value={draft.defaultValue} onChange={onChange} error={error} description={HINTS.json} rows={3} />;
  const hints = [
    HINTS[draft.type],
    draft.multiple ? 'Several values separated by commas' : undefined,
    draft.localized ? `Stored as the ${defaultLocale} value` : undefined,
  ].filter(Boolean);
  return <TextInput label={label} value={draft.defaultValue} onChange={onChange} error={error} description={hints.length > 0 ? hints.join('. ') : undefined} />;
}
