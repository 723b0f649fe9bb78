import { useState } from 'react';
import { Form } from 'react-aria-components';
import { TabulaError, type RouterOutputs } from 'tabula/client';
import { errorText, fieldErrors } from '../../data/errors.js';
import { Button, CheckboxInput, SelectInput, TextAreaInput, TextInput } from '../../ui/controls.js';
import { isoToLocal, localToIso } from '../../ui/format.js';

export type ApiKey = RouterOutputs['apiKeys']['list']['list'][number];
export type Permission = NonNullable<ApiKey['permission']>;

export interface KeyValues {
  name: string;
  /** A built-in permission, or (roleId) a custom role of the project (docs/roles.md#granting-a-role): one of the two. */
  permission?: Permission;
  roleId?: string;
  allowedHosts: string[];
  active: boolean;
  expiresAt: string | null;
}

export const PERMISSIONS = [
  { id: 'read', label: 'Read (GET only)' },
  { id: 'read_write', label: 'Read and write' },
] satisfies { id: Permission; label: string }[];

/** A custom role's choice in the select: `role:<id>`, beside the built-in permissions. */
const ROLE_PREFIX = 'role:';

/**
 * The hosts field's error: a malformed host is a 400 whose message names `allowedHosts.N` (a 422
 * detail would too); the form has one field for all of them.
 */
function hostsError(error: unknown, errors: Record<string, string>): string | undefined {
  const entry = Object.entries(errors).find(([field]) => field === 'allowedHosts' || field.startsWith('allowedHosts.'));
  if (entry) return entry[1];
  return error instanceof TabulaError && error.code === 'BAD_REQUEST' && error.message.includes('allowedHosts') ? error.message : undefined;
}

/** A key's settings, for a new key and for an existing one. */
export function KeyForm({ initial, roles, submitLabel, error, isPending, onSubmit, onCancel }: {
  initial?: ApiKey;
  /** The project's custom roles a key may hold. */
  roles: { id: string; name: string }[];
  submitLabel: string;
  error: unknown;
  isPending: boolean;
  onSubmit(values: KeyValues): void;
  onCancel(): void;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [permission, setPermission] = useState<string>(initial?.roleId ? `${ROLE_PREFIX}${initial.roleId}` : (initial?.permission ?? 'read'));
  const grants = [...PERMISSIONS, ...roles.map((r) => ({ id: `${ROLE_PREFIX}${r.id}`, label: `Role: ${r.name}` }))];
  const [hosts, setHosts] = useState((initial?.allowedHosts ?? []).join('\n'));
  const [active, setActive] = useState(initial?.active ?? true);
  const [expires, setExpires] = useState(isoToLocal(initial?.expiresAt));
  const errors = fieldErrors(error);
  return (
    <Form
      // Server errors mark fields invalid; natively that would block the corrected form's next submit.
      validationBehavior="aria"
      onSubmit={(event) => {
        event.preventDefault();
        const allowedHosts = hosts.split(/[\s,]+/).map((host) => host.trim()).filter(Boolean);
        const grant = permission.startsWith(ROLE_PREFIX) ? { roleId: permission.slice(ROLE_PREFIX.length) } : { permission: permission as Permission };
        onSubmit({ name, ...grant, allowedHosts, active, expiresAt: localToIso(expires) ?? null });
      }}
    >
      <TextInput label="Name" value={name} onChange={setName} error={errors.name} isRequired autoFocus />
      <SelectInput
        label="Permission"
        value={permission}
        onChange={setPermission}
        options={grants}
        error={errors.permission ?? errors.roleId}
        description="A built-in permission, or a custom role whose rules say what the key may do (see Roles)."
      />
      <TextAreaInput
        label="Allowed hosts"
        value={hosts}
        onChange={setHosts}
        rows={3}
        error={hostsError(error, errors)}
        description="One per line (app.example.com or *.example.com). Empty: any origin. Requests from elsewhere are refused."
      />
      <TextInput label="Expires at" type="datetime-local" value={expires} onChange={setExpires} error={errors.expiresAt} description="Empty: never. After it the key is refused." />
      <CheckboxInput label="Active" value={active} onChange={setActive} />
      {error !== null && error !== undefined && Object.keys(errors).length === 0 && !hostsError(error, errors) && (
        <p role="alert" className="banner banner-error">
          {errorText(error)}
        </p>
      )}
      <div className="dialog-actions">
        <Button onPress={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" isDisabled={isPending}>
          {submitLabel}
        </Button>
      </div>
    </Form>
  );
}
