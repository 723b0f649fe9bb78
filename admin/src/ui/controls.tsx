import type { ReactNode } from 'react';
import {
  Button as AriaButton,
  Checkbox as AriaCheckbox,
  FieldError,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Text,
  TextArea,
  TextField,
  type ButtonProps,
  type Key,
} from 'react-aria-components';

/**
 * The console's form controls: react-aria-components (accessible labels, keyboard and focus
 * handling, ARIA roles) styled by styles.css. A control shows its server error (`error`) under
 * itself and is marked invalid for assistive technology.
 */
export function Button({ variant = 'secondary', className, ...props }: ButtonProps & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost' }) {
  return <AriaButton {...props} className={`btn btn-${variant}${className ? ` ${className}` : ''}`} />;
}

interface FieldProps {
  label: string;
  error?: string;
  description?: ReactNode;
  name?: string;
  isRequired?: boolean;
  isDisabled?: boolean;
  autoFocus?: boolean;
}

export function TextInput({ label, error, description, value, onChange, type = 'text', placeholder, ...rest }: FieldProps & { value: string; onChange(value: string): void; type?: string; placeholder?: string }) {
  return (
    <TextField className="field" value={value} onChange={onChange} isInvalid={!!error} type={type} {...rest}>
      <Label>{label}</Label>
      <Input placeholder={placeholder} />
      {description && <Text slot="description" className="field-description">{description}</Text>}
      <FieldError className="field-error">{error}</FieldError>
    </TextField>
  );
}

export function TextAreaInput({ label, error, description, value, onChange, rows = 4, ...rest }: FieldProps & { value: string; onChange(value: string): void; rows?: number }) {
  return (
    <TextField className="field" value={value} onChange={onChange} isInvalid={!!error} {...rest}>
      <Label>{label}</Label>
      <TextArea rows={rows} />
      {description && <Text slot="description" className="field-description">{description}</Text>}
      <FieldError className="field-error">{error}</FieldError>
    </TextField>
  );
}

export interface Option {
  id: string;
  label: string;
}

export function SelectInput({ label, error, description, value, onChange, options, placeholder, ...rest }: FieldProps & { value: string | null; onChange(value: string): void; options: Option[]; placeholder?: string }) {
  return (
    <Select className="field" value={value} onChange={(key: Key | null) => key !== null && onChange(String(key))} isInvalid={!!error} placeholder={placeholder} {...rest}>
      <Label>{label}</Label>
      <AriaButton className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </AriaButton>
      {description && <Text slot="description" className="field-description">{description}</Text>}
      <FieldError className="field-error">{error}</FieldError>
      <Popover className="popover">
        <ListBox className="listbox" items={options}>
          {(option) => <ListBoxItem className="listbox-item" id={option.id} textValue={option.label}>{option.label}</ListBoxItem>}
        </ListBox>
      </Popover>
    </Select>
  );
}

export function CheckboxInput({ label, value, onChange, isDisabled }: { label: string; value: boolean; onChange(value: boolean): void; isDisabled?: boolean }) {
  return (
    <AriaCheckbox className="checkbox" isSelected={value} onChange={onChange} isDisabled={isDisabled}>
      <span className="checkbox-box" aria-hidden="true">{value ? '✓' : ''}</span>
      {label}
    </AriaCheckbox>
  );
}
