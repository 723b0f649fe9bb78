import type { ReactNode } from 'react';
import { useColumns, type Column } from '../../data/columns/queries.js';
import type { Rule } from '../../data/roles/queries.js';
import type { Table } from '../../data/tables/queries.js';
import { Button, CheckboxInput, SelectInput } from '../../ui/controls.js';
import { FilterBuilder } from '../list/FilterBuilder.js';
import { columnField, STATUSES, SYSTEM_FIELDS, type ListField } from '../list/fields.js';
import type { Condition } from '../list/filters.js';

export const ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;
type Action = (typeof ACTIONS)[number];
type Status = (typeof STATUSES)[number];

/** What a `where` may name on `*` (every table): the rows' own fields (docs/roles.md#rules). */
const EVERY_TABLE_FIELDS: ListField[] = [
  { id: 'slug', label: 'Slug', kind: 'text', multiple: false },
  ...SYSTEM_FIELDS,
  { id: 'publishAt', label: 'Publish at', kind: 'datetime', multiple: false },
];

/** What a `where` may name on `$files`. */
const FILE_FIELDS: ListField[] = [
  { id: 'name', label: 'File name', kind: 'text', multiple: false },
  { id: 'mimeType', label: 'Type (MIME)', kind: 'text', multiple: false },
  { id: 'size', label: 'Size (bytes)', kind: 'number', multiple: false },
];

const toggle = <T,>(list: readonly T[], item: T, on: boolean): T[] => (on ? [...list.filter((x) => x !== item), item] : list.filter((x) => x !== item));

function Group({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="rule-group">
      <legend>{legend}</legend>
      <div className="rule-checks">{children}</div>
    </fieldset>
  );
}

/** Columns a rule reads or writes: "all" (the key absent) or a chosen few; writes may name one locale (`title.fr`). */
function ColumnChoice({ legend, columns, locales, value, onChange, perLocale }: { legend: string; columns: Column[]; locales: string[]; value: string[] | undefined; onChange(next: string[] | undefined): void; perLocale: boolean }) {
  const names = columns.flatMap((c) => (perLocale && c.settings.localized === true ? [c.name, ...locales.map((l) => `${c.name}.${l}`)] : [c.name]));
  return (
    <Group legend={legend}>
      <CheckboxInput label="All columns" value={value === undefined} onChange={(all) => onChange(all ? undefined : [])} />
      {value !== undefined &&
        names.map((name) => <CheckboxInput key={name} label={name} value={value.includes(name)} onChange={(on) => onChange(toggle(value, name, on))} />)}
    </Group>
  );
}

/**
 * One rule of a role as a form (docs/roles.md#rules): its table, its actions, the rows it holds
 * (`where`, built with the contents list's filter builder), its columns, statuses and drafts.
 */
export function RuleForm({ projectId, index, rule, tables, locales, errors, onChange, onRemove }: {
  projectId: string;
  index: number;
  rule: Rule;
  tables: Table[];
  locales: string[];
  /** The API's 422 details of this rule (`rules.N…`). */
  errors: [string, string][];
  onChange(rule: Rule): void;
  onRemove(): void;
}) {
  const table = tables.find((t) => t.key === rule.table);
  const columns = useColumns(projectId, table?.id ?? '', { enabled: table !== undefined });
  const liveColumns = table ? (columns.data ?? []) : [];
  const isFiles = rule.table === '$files';
  const whereFields = isFiles ? FILE_FIELDS : table ? [...liveColumns.map(columnField), ...SYSTEM_FIELDS] : EVERY_TABLE_FIELDS;
  const set = (patch: Partial<Rule>) => {
    const next: Rule = { ...rule, ...patch };
    for (const key of Object.keys(next) as (keyof Rule)[]) if (next[key] === undefined) delete next[key];
    onChange(next);
  };
  const tableOptions = [
    { id: '*', label: 'Every table (*)' },
    ...tables.map((t) => ({ id: t.key, label: `${t.name} (${t.key})` })),
    { id: '$files', label: 'File library ($files)' },
  ];
  const label = `Rule ${index + 1}`;
  return (
    <fieldset className="rule card" aria-describedby={errors.length > 0 ? `rule-${index}-errors` : undefined}>
      <legend>{label}</legend>
      <div className="rule-head">
        <SelectInput
          label="Table"
          value={rule.table}
          options={tableOptions}
          onChange={(key) =>
            // Another table: its columns and where no longer apply.
            set({ table: key, where: undefined, fields: undefined, ...(key === '$files' ? { statuses: undefined, drafts: undefined, writeAsDraft: undefined, actions: rule.actions.filter((a) => a !== 'publish') } : {}) })
          }
        />
        <Button variant="danger" aria-label={`Remove rule ${index + 1}`} onPress={onRemove}>
          Remove rule
        </Button>
      </div>
      <Group legend="Actions">
        {ACTIONS.filter((a) => !(isFiles && a === 'publish')).map((action) => (
          <CheckboxInput key={action} label={action} value={rule.actions.includes(action)} onChange={(on) => set({ actions: toggle(rule.actions, action as Action, on) })} />
        ))}
      </Group>
      <div className="rule-where">
        <h4>Rows inside the rule</h4>
        <p className="muted">All of these must hold. "$me" stands for the caller (its account or key id), "$now" for the time of the request.</p>
        {whereFields.length > 0 && (
          <FilterBuilder
            key={rule.table}
            label={`${label} rows`}
            allOnly
            fields={whereFields}
            conditions={(rule.where ?? []) as unknown as Condition[]}
            op="and"
            onChange={(conditions) => set({ where: conditions.length > 0 ? (conditions as unknown as Rule['where']) : undefined })}
          />
        )}
      </div>
      {table && (
        <div className="rule-columns">
          <ColumnChoice legend="Columns read" columns={liveColumns} locales={locales} perLocale={false} value={rule.fields?.read} onChange={(read) => set({ fields: cleanFields({ ...rule.fields, read }) })} />
          <ColumnChoice legend="Columns written" columns={liveColumns} locales={locales} perLocale value={rule.fields?.write} onChange={(write) => set({ fields: cleanFields({ ...rule.fields, write }) })} />
        </div>
      )}
      {!isFiles && (
        <>
          <Group legend="Statuses read">
            <CheckboxInput label="Every status" value={rule.statuses === undefined} onChange={(all) => set({ statuses: all ? undefined : [] })} />
            {rule.statuses !== undefined &&
              STATUSES.map((status) => <CheckboxInput key={status} label={status} value={rule.statuses!.includes(status)} onChange={(on) => set({ statuses: toggle(rule.statuses!, status as Status, on) })} />)}
          </Group>
          <Group legend="Drafts">
            <CheckboxInput label="Reads pending drafts and revisions" value={rule.drafts === true} onChange={(on) => set({ drafts: on ? true : undefined })} />
            <CheckboxInput label="Updates of published rows become drafts" value={rule.writeAsDraft === true} onChange={(on) => set({ writeAsDraft: on ? true : undefined })} />
          </Group>
        </>
      )}
      {errors.length > 0 && (
        <ul id={`rule-${index}-errors`} className="field-error rule-errors">
          {errors.map(([field, message]) => (
            <li key={field}>
              {field.replace(/^rules\.\d+\.?/, '') || 'rule'}: {message}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

function cleanFields(fields: { read?: string[]; write?: string[] }): Rule['fields'] {
  const out: { read?: string[]; write?: string[] } = {};
  if (fields.read !== undefined) out.read = fields.read;
  if (fields.write !== undefined) out.write = fields.write;
  return Object.keys(out).length > 0 ? out : undefined;
}
