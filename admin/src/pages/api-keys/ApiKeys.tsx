import { useState } from 'react';
import { useParams } from 'react-router';
import { apiKeyKeys } from '../../data/api-keys/keys.js';
import { useApiKeys } from '../../data/api-keys/queries.js';
import { useApiMutation } from '../../data/api.js';
import { useRoles } from '../../data/roles/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, ModalDialog, PageHeader } from '../../ui/feedback.js';
import { when } from '../../ui/format.js';
import { KeyForm, PERMISSIONS, type ApiKey, type KeyValues } from './KeyForm.js';
import { SecretDialog } from '../../ui/SecretDialog.js';
import { McpConfig } from './McpConfig.js';
import './ApiKeys.css';

type Dialog = { kind: 'create' } | { kind: 'edit' | 'rotate' | 'delete'; key: ApiKey } | null;

const permissionLabel = (permission: string) => PERMISSIONS.find((p) => p.id === permission)?.label ?? permission;

function status(key: ApiKey): { label: string; badge: string } {
  if (!key.active) return { label: 'Inactive', badge: 'badge-archived' };
  if (key.expiresAt && new Date(key.expiresAt) <= new Date()) return { label: 'Expired', badge: 'badge-error' };
  return { label: 'Active', badge: 'badge-published' };
}

/** A project's API keys: the value of a new or rotated key is shown once, in a dialog. */
export function ApiKeysPage() {
  const { projectId } = useParams();
  const pid = projectId!;
  const keysKey = apiKeyKeys.list(pid);
  const keys = useApiKeys(pid);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const roles = useRoles(pid);
  const customRoles = (roles.data?.list ?? []).filter((r) => !r.builtIn);
  const roleName = (roleId: string | null) => customRoles.find((r) => r.id === roleId)?.name ?? 'a custom role';
  const [grace, setGrace] = useState('3600');

  const create = useApiMutation((client, values: KeyValues) => client.apiKeys.create.mutate({ projectId: pid, ...values, expiresAt: values.expiresAt ?? undefined }), [keysKey]);
  const update = useApiMutation((client, input: { apiKeyId: string } & KeyValues) => client.apiKeys.update.mutate({ projectId: pid, ...input }), [keysKey]);
  const rotate = useApiMutation((client, input: { apiKeyId: string; graceSeconds: number }) => client.apiKeys.rotate.mutate({ projectId: pid, ...input }), [keysKey]);
  const remove = useApiMutation((client, apiKeyId: string) => client.apiKeys.delete.mutate({ projectId: pid, apiKeyId }), [keysKey]);

  const open = (next: Dialog) => {
    [create, update, rotate, remove].forEach((mutation) => mutation.reset());
    setDialog(next);
  };
  const close = () => setDialog(null);
  const graceSeconds = Number(grace);
  const graceValid = /^\d+$/.test(grace) && graceSeconds <= 86_400;

  return (
    <>
      <PageHeader title="API keys">
        <Button variant="primary" onPress={() => open({ kind: 'create' })}>
          New API key
        </Button>
      </PageHeader>
      <p className="muted">Keys let applications call this project's API. A key's value is shown once, when it is created or rotated; the list shows its first characters only.</p>
      <ErrorBanner error={keys.error} />
      <ListState pending={keys.isPending} items={keys.data?.list} empty="No API key yet.">
        <DataTable className="ops-table" label="API keys" columns={['Name', 'Key', 'Permission', 'Allowed hosts', 'Status', 'Created', 'Last used', 'Actions']}>
          {keys.data?.list.map((key) => {
            const state = status(key);
            return (
              <tr key={key.id}>
                <th scope="row">{key.name}</th>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{key.permission === null ? `Role: ${roleName(key.roleId)}` : permissionLabel(key.permission)}</td>
                <td>
                  {key.allowedHosts.length === 0 ? (
                    <span className="muted">Any</span>
                  ) : (
                    <ul className="ops-hosts">
                      {key.allowedHosts.map((host) => (
                        <li key={host}>
                          <code>{host}</code>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>
                  <span className={`badge ${state.badge}`}>{state.label}</span>
                  {key.expiresAt && <div className="muted">until {when(key.expiresAt)}</div>}
                </td>
                <td>{when(key.createdAt)}</td>
                <td>{key.lastUsedAt ? when(key.lastUsedAt) : <span className="muted">Never</span>}</td>
                <td>
                  <div className="ops-actions">
                    <Button aria-label={`Edit ${key.name}`} onPress={() => open({ kind: 'edit', key })}>
                      Edit
                    </Button>
                    <Button aria-label={`Rotate ${key.name}`} onPress={() => open({ kind: 'rotate', key })}>
                      Rotate
                    </Button>
                    <Button variant="danger" aria-label={`Delete ${key.name}`} onPress={() => open({ kind: 'delete', key })}>
                      Delete
                    </Button>
                  </div>
                </td>
              </tr>
            );
          })}
        </DataTable>
      </ListState>

      <ModalDialog title="New API key" isOpen={dialog?.kind === 'create'} onClose={close}>
        <KeyForm
          roles={customRoles}
          submitLabel="Create key"
          error={create.error}
          isPending={create.isPending}
          onCancel={close}
          onSubmit={(values) =>
            create.mutate(values, {
              onSuccess: (created) => {
                close();
                setSecret({ title: `API key “${created.name}” created`, value: created.key });
              },
            })
          }
        />
      </ModalDialog>

      {dialog?.kind === 'edit' && (
        <ModalDialog title={`Edit “${dialog.key.name}”`} isOpen onClose={close}>
          <KeyForm initial={dialog.key} roles={customRoles} submitLabel="Save" error={update.error} isPending={update.isPending} onCancel={close} onSubmit={(values) => update.mutate({ apiKeyId: dialog.key.id, ...values }, { onSuccess: close })} />
        </ModalDialog>
      )}

      <ConfirmDialog
        title={dialog?.kind === 'rotate' ? `Rotate “${dialog.key.name}”` : 'Rotate'}
        isOpen={dialog?.kind === 'rotate'}
        confirmLabel="Rotate key"
        isPending={rotate.isPending || !graceValid}
        error={rotate.error}
        onClose={close}
        onConfirm={() =>
          dialog?.kind === 'rotate' &&
          rotate.mutate(
            { apiKeyId: dialog.key.id, graceSeconds },
            {
              onSuccess: (rotated) => {
                close();
                setSecret({ title: `New value of “${rotated.name}”`, value: rotated.key });
              },
            },
          )
        }
      >
        <p>The key gets a new value. Applications must switch to it before the old value stops working.</p>
        <TextInput label="Old value keeps working for (seconds)" value={grace} onChange={setGrace} error={graceValid ? undefined : 'a whole number from 0 to 86400'} description="0 to 86400 (24 hours); 0 refuses the old value at once." />
      </ConfirmDialog>

      <ConfirmDialog
        title={dialog?.kind === 'delete' ? `Delete “${dialog.key.name}”?` : 'Delete'}
        isOpen={dialog?.kind === 'delete'}
        confirmLabel="Delete key"
        isPending={remove.isPending}
        error={remove.error}
        onClose={close}
        onConfirm={() => dialog?.kind === 'delete' && remove.mutate(dialog.key.id, { onSuccess: close })}
      >
        <p>Applications using this key are refused at once. This cannot be undone.</p>
      </ConfirmDialog>

      <SecretDialog title={secret?.title ?? ''} label="API key" secret={secret?.value ?? null} onClose={() => setSecret(null)}>
        {secret && <McpConfig secret={secret.value} />}
      </SecretDialog>
    </>
  );
}
