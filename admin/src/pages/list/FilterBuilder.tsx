import { useState, type FormEvent } from 'react';
import { Button, SelectInput, TextInput } from '../../ui/controls.js';
import { useProject } from '../../data/projects/context.js';
import { ReferencePicker } from '../editor/ReferencePicker.js';
import { isReferenceField, operatorLabel, operatorsFor, takesList, takesValue, type BuilderOp, type ListField } from './fields.js';
import { FilterChip } from './FilterChip.js';
import { toCondition, type Condition } from './filters.js';
import './FilterBuilder.css';

/**
 * The list's filter as a person builds it: a field, an operator that applies to it, a value →
 * one condition of the API's `filter` (docs/contents.md#list-queries). The conditions show as removable chips, combined
 * by "all" (`op=and`) or "any" (`op=or`).
 */
export function FilterBuilder({
  fields,
  conditions,
  op,
  onChange,
  label = 'Filters',
  allOnly = false,
}: {
  fields: ListField[];
  conditions: Condition[];
  op: 'and' | 'or';
  onChange(conditions: Condition[], op: 'and' | 'or'): void;
  /** The section's name (a page with several builders names each). */
  label?: string;
  /** Every condition must hold (a role rule's `where`): no "any filter" choice. */
  allOnly?: boolean;
}) {
  const [fieldId, setFieldId] = useState<string>(fields[0]?.id ?? '');
  const field = fields.find((f) => f.id === fieldId) ?? fields[0];
  const operators = field ? operatorsFor(field) : [];
  const [chosenOp, setOp] = useState<BuilderOp | null>(null);
  const operator = chosenOp && operators.includes(chosenOp) ? chosenOp : operators[0];
  const [value, setValue] = useState('');
  const [upTo, setUpTo] = useState('');
  const [problem, setProblem] = useState<string | undefined>();

  const add = (event: FormEvent) => {
    event.preventDefault();
    if (!field || !operator) return;
    if (takesValue(operator) && (value.trim() === '' || (operator === 'between' && upTo.trim() === ''))) {
      setProblem(isReferenceField(field) ? 'Pick a row to filter by' : 'Enter a value to filter by');
      return;
    }
    setProblem(undefined);
    onChange([...conditions, toCondition(field, operator, value, upTo)], op);
    setValue('');
    setUpTo('');
  };

  return (
    <section className="list-filters" aria-label={label}>
      {conditions.length > 0 && (
        <div className="list-chips">
          {conditions.length > 1 && !allOnly && (
            <SelectInput
              label="Rows matching"
              value={op}
              options={[
                { id: 'and', label: 'all filters' },
                { id: 'or', label: 'any filter' },
              ]}
              onChange={(next) => onChange(conditions, next === 'or' ? 'or' : 'and')}
            />
          )}
          <ul aria-label={allOnly ? `${label}: all of these hold` : 'Active filters'}>
            {conditions.map((condition, index) => (
              <FilterChip key={`${index}:${JSON.stringify(condition)}`} condition={condition} fields={fields} onRemove={() => onChange(conditions.filter((_, i) => i !== index), op)} />
            ))}
          </ul>
          <Button variant="ghost" onPress={() => onChange([], 'and')}>
            Clear filters
          </Button>
        </div>
      )}
      {field && operator && (
        <form className="inline-form list-filter-form" onSubmit={add}>
          <SelectInput label="Filter by" value={field.id} options={fields.map((f) => ({ id: f.id, label: f.label }))} onChange={(id) => { setFieldId(id); setOp(null); setValue(''); setUpTo(''); }} />
          <SelectInput label="Condition" value={operator} options={operators.map((o) => ({ id: o, label: operatorLabel(o, field) }))} onChange={(o) => setOp(o as BuilderOp)} />
          {takesValue(operator) && <ValueInput field={field} op={operator} label={operator === 'between' ? 'From' : 'Value'} value={value} onChange={setValue} error={problem} />}
          {operator === 'between' && <ValueInput field={field} op={operator} label="To" value={upTo} onChange={setUpTo} />}
          <Button type="submit">Add filter</Button>
        </form>
      )}
    </section>
  );
}

/** The value's input, fitted to the field: a choice for booleans and options, a date picker for dates. */
function ValueInput({ field, op, label, value, onChange, error }: { field: ListField; op: BuilderOp; label: string; value: string; onChange(value: string): void; error?: string }) {
  if (isReferenceField(field) && field.column) return <ReferenceValue field={field} label={label} value={value} onChange={onChange} error={error} />;
  if (takesList(op)) return <TextInput label={label} value={value} onChange={onChange} error={error} description="Separate values with commas" />;
  if (field.kind === 'boolean') {
    return (
      <SelectInput
        label={label}
        value={value || null}
        placeholder="Choose"
        error={error}
        options={[
          { id: 'true', label: 'Yes' },
          { id: 'false', label: 'No' },
        ]}
        onChange={onChange}
      />
    );
  }
  if (field.options) return <SelectInput label={label} value={value || null} placeholder="Choose" error={error} options={field.options.map((o) => ({ id: o, label: o }))} onChange={onChange} />;
  const type = field.kind === 'date' ? 'date' : field.kind === 'datetime' ? 'datetime-local' : field.kind === 'number' ? 'number' : 'text';
  return <TextInput label={label} type={type} value={value} onChange={onChange} error={error} />;
}

/** A referenced row, found by its name with the editor's reference picker; the condition takes its id. */
function ReferenceValue({ field, label, value, onChange, error }: { field: ListField; label: string; value: string; onChange(value: string): void; error?: string }) {
  const project = useProject();
  // One row, whatever the column holds: "includes" on a multiple column.
  const column = { ...field.column!, settings: { ...field.column!.settings, multiple: false } };
  return <ReferencePicker projectId={project.id} column={column} label={label} value={value || null} onChange={(picked) => onChange(typeof picked === 'string' ? picked : '')} error={error} />;
}
