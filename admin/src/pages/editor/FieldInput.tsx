import { memo, useEffect, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs, type Key } from 'react-aria-components';
import type { Column } from '../../data/columns/queries.js';
import { SelectInput } from '../../ui/controls.js';
import { FileField } from './FileField.js';
import { AreaInput, GROWING_TEXT, LineInput, longTextClass, OptionsInput, ToggleInput } from './inputs.js';
import { MarkdownInput } from './MarkdownInput.js';
import { ReferencePicker } from './ReferencePicker.js';
import { isLocalized, type FieldValue } from './values.js';

/** Errors by API field path: `data.title`, `data.title.de` (docs/reliability.md#errors). */
export type Errors = Record<string, string>;

const NONE = '__none__';


export const columnLabel = (column: Column): string => column.label || column.name;

/** What a person should know about a column's values, from its settings. */
function describe(column: Column, columns: Column[], required: boolean): string | undefined {
  const s = column.settings as Record<string, unknown>;
  const parts: string[] = [];
  if (required) parts.push('Required');
  if (s.unique) parts.push('unique');
  if (column.type === 'integer') parts.push('a whole number');
  if (s.min !== undefined && s.max !== undefined) parts.push(`from ${s.min} to ${s.max}`);
  else if (s.min !== undefined) parts.push(`at least ${s.min}`);
  else if (s.max !== undefined) parts.push(`at most ${s.max}`);
  if (s.maxText !== undefined) parts.push(`up to ${s.maxText} characters`);
  if (column.type === 'datetime') parts.push('your local time');
  if (column.type === 'json') parts.push('any JSON value');
  if (column.type === 'slug') {
    const source = columns.find((c) => c.name === s.source);
    parts.push(source ? `lower-case words joined by dashes; left empty, it is made from ${columnLabel(source)}` : 'lower-case words joined by dashes');
  }
  if (parts.length === 0) return undefined;
  const text = parts.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1) + '.';
}

interface ScalarProps {
  projectId: string;
  column: Column;
  columns: Column[];
  label: string;
  value: FieldValue;
  onChange(value: FieldValue): void;
  error?: string;
  /** False on the other locales' tabs of a localized column: `required` binds the default locale (docs/contents.md#contents). */
  required?: boolean;
}

/** One input for one value of a column, by type (docs/contents.md#tables-and-columns). */
function ScalarInput({ projectId, column, columns, label, value, onChange, error, required = column.settings.required === true }: ScalarProps) {
  const common = { label, error, description: describe(column, columns, required), isRequired: required };
  const text = typeof value === 'string' ? value : '';
  switch (column.type) {
    case 'longtext':
      if (column.settings.format === 'markdown') return <MarkdownInput {...common} value={text} onChange={onChange} />;
      return <AreaInput {...common} value={text} onChange={onChange} rows={6} className={longTextClass(text)} spellCheck={text.length <= GROWING_TEXT} />;
    case 'json':
      // Tall enough for the value as formatted, within reason.
      return <AreaInput {...common} value={text} onChange={onChange} rows={Math.min(14, Math.max(4, text.split('\n').length + 1))} className="editor-json" />;
    case 'number':
      return <LineInput {...common} value={text} onChange={onChange} inputMode="decimal" />;
    case 'integer':
      return <LineInput {...common} value={text} onChange={onChange} inputMode="numeric" />;
    case 'boolean':
      return <ToggleInput label={label} value={value === true} onChange={onChange} error={error} />;
    case 'date':
      return <LineInput {...common} value={text} onChange={onChange} type="date" />;
    case 'datetime':
      return <LineInput {...common} value={text} onChange={onChange} type="datetime-local" />;
    case 'email':
      return <LineInput {...common} value={text} onChange={onChange} type="email" />;
    case 'url':
      return <LineInput {...common} value={text} onChange={onChange} type="url" />;
    case 'select': {
      const options = (column.settings.options as string[] | undefined) ?? [];
      if (Array.isArray(value)) return <OptionsInput label={label} options={options} value={value} onChange={onChange} error={error} />;
      return (
        <SelectInput
          {...common}
          value={typeof value === 'string' ? value : NONE}
          onChange={(key) => onChange(key === NONE ? null : key)}
          options={[{ id: NONE, label: '(none)' }, ...options.map((o) => ({ id: o, label: o }))]}
        />
      );
    }
    case 'reference':
      return <ReferencePicker projectId={projectId} column={column} label={label} value={value as string | string[] | null} onChange={onChange} error={error} />;
    case 'file':
      return <FileField projectId={projectId} column={column} label={label} value={value as string | string[] | null} onChange={onChange} error={error} />;
    default:
      return <LineInput {...common} value={text} onChange={onChange} />;
  }
}

interface FieldProps {
  projectId: string;
  column: Column;
  columns: Column[];
  locales: string[];
  defaultLocale: string;
  value: FieldValue;
  onChange(value: FieldValue): void;
  errors: Errors;
}

/**
 * A column's field. A localized column (docs/contents.md#contents) gets one tab per project locale, the default
 * first; a tab whose value the API refused is marked, so the error is found without opening each,
 * and after a refused save the first refused locale's tab is the one shown.
 * Memoized: a keystroke in one field renders that field only (its props are stable otherwise).
 */
export const FieldInput = memo(function FieldInput({ projectId, column, columns, locales, defaultLocale, value, onChange, errors }: FieldProps) {
  const label = columnLabel(column);
  const field = `data.${column.name}`;
  const ordered = [defaultLocale, ...locales.filter((l) => l !== defaultLocale)];
  const [locale, setLocale] = useState<Key>(defaultLocale);
  const refused = ordered.find((l) => errors[`${field}.${l}`]);
  useEffect(() => {
    if (refused && !errors[`${field}.${String(locale)}`]) setLocale(refused);
    // Only when the errors change: a person may open another tab afterwards.
  }, [errors]);
  let input;
  if (!isLocalized(column)) {
    input = <ScalarInput projectId={projectId} column={column} columns={columns} label={label} value={value} onChange={onChange} error={errors[field]} />;
  } else {
    const byLocale = (value ?? {}) as Record<string, string>;
    input = (
      <div className="editor-localized">
        <Tabs className="tabs editor-locale-tabs" selectedKey={locale} onSelectionChange={setLocale}>
          <TabList aria-label={`${label} by locale`}>
            {ordered.map((l) => (
              <Tab key={l} id={l}>
                {l}
                {errors[`${field}.${l}`] ? <span className="editor-tab-error"> (error)</span> : null}
              </Tab>
            ))}
          </TabList>
          {ordered.map((l) => (
            <TabPanel key={l} id={l} className="editor-tab-panel">
              <ScalarInput
                projectId={projectId}
                column={column}
                columns={columns}
                label={`${label} (${l})`}
                value={byLocale[l] ?? ''}
                required={column.settings.required === true && l === defaultLocale}
                onChange={(next) => onChange({ ...byLocale, [l]: String(next ?? '') })}
                error={errors[`${field}.${l}`] ?? (l === defaultLocale ? errors[field] : undefined)}
              />
            </TabPanel>
          ))}
        </Tabs>
      </div>
    );
  }
  // The error summary finds a field by its API path (ErrorSummary's links).
  return <div data-field={field}>{input}</div>;
});
