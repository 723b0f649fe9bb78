import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { errorText, fieldErrors } from '../../data/errors.js';
import { useMyAccess } from '../../data/projects/access.js';
import { variableKeys } from '../../data/variables/keys.js';
import { useVariables, type Variable } from '../../data/variables/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button, TextAreaInput, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, ModalDialog, PageHeader } from '../../ui/feedback.js';
import { parseJson, showJson } from './json.js';

type Dialog = { kind: 'edit'; variable: Variable | null } | { kind: 'delete'; variable: Variable } | null;

const preview = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
};

/** The project's variables: any JSON value per key, edited as JSON text checked as it is typed. */
export function VariablesPage() {
  const { workspaceId, projectId } = useParams();
  const pid = projectId!;
  const canWrite = useMyAccess(workspaceId!, pid).canWrite;
  const variables = useVariables(pid);
  const [dialog, setDialog] = useState<Dialog>(null);
  const remove = useApiMutation((client, variableId: string) => client.variables.delete.mutate({ projectId: pid, variableId }), [variableKeys.list(pid)]);
  const close = () => setDialog(null);
  return (
    <>
      <PageHeader title="Variables">
        {canWrite && (
          <Button variant="primary" onPress={() => setDialog({ kind: 'edit', variable: null })}>
            New variable
          </Button>
        )}
      </PageHeader>
      <p className="muted">Settings the project's applications read by key: any JSON value (a text in quotes, a number, true or false, a list, an object).</p>
      <ErrorBanner error={variables.error} />
      <ListState pending={variables.isPending} items={variables.data?.list} empty="No variable yet.">
        <DataTable className="ops-table" label="Variables" columns={['Key', 'Value', 'Description', canWrite && 'Actions']}>
          {variables.data?.list.map((v) => (
            <tr key={v.id}>
              <th scope="row" className="mono">
                {v.key}
              </th>
              <td>
                <code>{preview(v.value)}</code>
              </td>
              <td>{v.description}</td>
              {canWrite && (
                <td>
                  <div className="ops-actions">
                    <Button aria-label={`Edit ${v.key}`} onPress={() => setDialog({ kind: 'edit', variable: v })}>
                      Edit
                    </Button>
                    <Button variant="danger" aria-label={`Delete ${v.key}`} onPress={() => (remove.reset(), setDialog({ kind: 'delete', variable: v }))}>
                      Delete
                    </Button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      </ListState>
      {dialog?.kind === 'edit' && <VariableForm projectId={pid} variable={dialog.variable} onClose={close} />}
      <ConfirmDialog
        title={dialog?.kind === 'delete' ? `Delete “${dialog.variable.key}”?` : 'Delete'}
        isOpen={dialog?.kind === 'delete'}
        confirmLabel="Delete variable"
        isPending={remove.isPending}
        error={remove.error}
        onClose={close}
        onConfirm={() => dialog?.kind === 'delete' && remove.mutate(dialog.variable.id, { onSuccess: close })}
      >
        <p>Applications reading it get nothing from now on.</p>
      </ConfirmDialog>
    </>
  );
}

function VariableForm({ projectId, variable, onClose }: { projectId: string; variable: Variable | null; onClose(): void }) {
  const [key, setKey] = useState(variable?.key ?? '');
  const [text, setText] = useState(variable ? showJson(variable.value) : '');
  const [description, setDescription] = useState(variable?.description ?? '');
  const [touched, setTouched] = useState(variable !== null);
  const save = useApiMutation(async (client, value: unknown) => {
    if (variable) return client.variables.update.mutate({ projectId, variableId: variable.id, value, description });
    return client.variables.create.mutate({ projectId, key, value, description });
  }, [variableKeys.list(projectId)]);
  const parsed = parseJson(text);
  const errors = fieldErrors(save.error);
  const jsonError = touched && !parsed.ok ? parsed.message : errors.value;
  return (
    <ModalDialog title={variable ? `Edit “${variable.key}”` : 'New variable'} isOpen onClose={onClose}>
      <Form
        validationBehavior="aria"
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          setTouched(true);
          if (parsed.ok) save.mutate(parsed.value, { onSuccess: onClose });
        }}
      >
        {variable ? <p>Key: <code>{variable.key}</code></p> : <TextInput label="Key" value={key} onChange={setKey} error={errors.key} isRequired autoFocus description="Letters, digits, _ . and -, starting with a letter or _" />}
        <TextAreaInput
          label="Value (JSON)"
          rows={10}
          value={text}
          onChange={(next) => (setText(next), setTouched(true))}
          error={jsonError}
          description={parsed.ok ? `Valid JSON: ${parsed.value === null ? 'null' : Array.isArray(parsed.value) ? 'a list' : typeof parsed.value === 'object' ? 'an object' : `a ${typeof parsed.value}`}` : undefined}
        />
        <TextInput label="Description" value={description} onChange={setDescription} error={errors.description} />
        {save.error !== null && Object.keys(errors).length === 0 && <p role="alert" className="banner banner-error">{errorText(save.error)}</p>}
        <div className="dialog-actions">
          <Button onPress={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" isDisabled={save.isPending || !parsed.ok}>
            Save
          </Button>
        </div>
      </Form>
    </ModalDialog>
  );
}
