import { useId } from 'react';
import { Checkbox } from 'react-aria-components';

/**
 * A checkbox with the API's refusal under it (a `unique` that existing rows break, 409), tied to
 * it by aria-describedby: the shared CheckboxInput has no error of its own.
 */
export function CheckField({ label, value, onChange, error }: { label: string; value: boolean; onChange(value: boolean): void; error?: string }) {
  const errorId = useId();
  return (
    <div className="check-field">
      <Checkbox className="checkbox" isSelected={value} onChange={onChange} isInvalid={!!error} aria-describedby={error ? errorId : undefined}>
        <span className="checkbox-box" aria-hidden="true">
          {value ? '✓' : ''}
        </span>
        {label}
      </Checkbox>
      {error && (
        <span id={errorId} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}
