import type { ReactNode } from 'react';
import { Checkbox, CheckboxGroup, FieldError, Input, Label, Text, TextArea, TextField } from 'react-aria-components';

/**
 * Up to this many characters a long text's box grows with its lines (CSS `field-sizing`); a longer
 * one is surely taller than the box's ceiling, and a fixed box spares the browser measuring the
 * whole text again on each keystroke (docs/console.md#long-text). Spell checking a text that long
 * is off for the same reason.
 */
export const GROWING_TEXT = 20_000;
export const longTextClass = (text: string) => (text.length > GROWING_TEXT ? 'editor-longtext editor-longtext-full' : 'editor-longtext');

/**
 * The editor's plain inputs. Unlike the shared controls they take the input's own attributes
 * (type, inputMode) and validate by ARIA only: the API is the judge of a value (its 422 lands at
 * the field), and the browser must not block a save on a field hidden in another locale's tab.
 */
export interface InputProps {
  label: string;
  value: string;
  onChange(value: string): void;
  error?: string;
  description?: ReactNode;
  isRequired?: boolean;
}

export function LineInput({ label, value, onChange, error, description, isRequired, type = 'text', inputMode, className }: InputProps & { type?: string; inputMode?: 'decimal' | 'numeric' | 'text'; className?: string }) {
  return (
    <TextField className={`field${className ? ` ${className}` : ''}`} value={value} onChange={onChange} isInvalid={!!error} isRequired={isRequired} validationBehavior="aria" type={type}>
      <Label>{label}</Label>
      <Input inputMode={inputMode} />
      {description && <Text slot="description" className="field-description">{description}</Text>}
      <FieldError className="field-error">{error}</FieldError>
    </TextField>
  );
}

export function AreaInput({ label, value, onChange, error, description, isRequired, rows = 5, className, spellCheck }: InputProps & { rows?: number; className?: string; spellCheck?: boolean }) {
  return (
    <TextField className={`field${className ? ` ${className}` : ''}`} value={value} onChange={onChange} isInvalid={!!error} isRequired={isRequired} validationBehavior="aria">
      <Label>{label}</Label>
      <TextArea rows={rows} spellCheck={spellCheck} />
      {description && <Text slot="description" className="field-description">{description}</Text>}
      <FieldError className="field-error">{error}</FieldError>
    </TextField>
  );
}

export function ToggleInput({ label, value, onChange, error }: { label: string; value: boolean; onChange(value: boolean): void; error?: string }) {
  return (
    <div className="field">
      <Checkbox className="checkbox" isSelected={value} onChange={onChange} isInvalid={!!error} validationBehavior="aria">
        <span className="checkbox-box" aria-hidden="true">{value ? '✓' : ''}</span>
        {label}
      </Checkbox>
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}

/** A `multiple` select: one checkbox per option, in a labelled group. */
export function OptionsInput({ label, options, value, onChange, error }: { label: string; options: string[]; value: string[]; onChange(value: string[]): void; error?: string }) {
  return (
    <CheckboxGroup className="field editor-options" value={value} onChange={onChange} isInvalid={!!error} validationBehavior="aria">
      <Label>{label}</Label>
      <div className="row">
        {options.map((option) => (
          <Checkbox key={option} value={option} className="checkbox">
            {({ isSelected }) => (
              <>
                <span className="checkbox-box" aria-hidden="true">{isSelected ? '✓' : ''}</span>
                {option}
              </>
            )}
          </Checkbox>
        ))}
      </div>
      <FieldError className="field-error">{error}</FieldError>
    </CheckboxGroup>
  );
}
