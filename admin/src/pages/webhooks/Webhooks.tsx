import { useState } from 'react';
import { useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { useTables } from '../../data/tables/queries.js';
import { webhookKeys } from '../../data/webhooks/keys.js';
import { useWebhooks } from '../../data/webhooks/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, ModalDialog, PageHeader } from '../../ui/feedback.js';
import { Deliveries } from './Deliveries.js';
import { when } from '../../ui/format.js';
import { SecretDialog } from '../../ui/SecretDialog.js';
import { WebhookForm, type Webhook, type WebhookValues } from './WebhookForm.js';
import './Webhooks.css';

type Dialog = { kind: 'create' } | { kind: 'edit' | 'rotate' | 'delete'; webhook: Webhook } | null;

/** A project's webhooks: settings, on/off, the signing secret (shown once), and each one's deliveries. */
export function WebhooksPage() {
  const { projectId } = useParams();
  const pid = projectId!;
  const hooksKey = webhookKeys.list(pid);
  const webhooks = useWebhooks(pid);
  const tables = useTables(pid);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);

  const create = useApiMutation((client, values: WebhookValues) => client.webhooks.create.mutate({ projectId: pid, ...values }), [hooksKey]);
  const update = useApiMutation((client, input: { webhookId: string } & Partial<WebhookValues>) => client.webhooks.update.mutate({ projectId: pid, ...input }), [hooksKey]);
  const rotate = useApiMutation((client, webhookId: string) => client.webhooks.rotateSecret.mutate({ projectId: pid, webhookId }), [hooksKey]);
  const remove = useApiMutation((client, webhookId: string) => client.webhooks.delete.mutate({ projectId: pid, webhookId }), [hooksKey]);

  const open = (next: Dialog) => {
    [create, update, rotate, remove].forEach((mutation) => mutation.reset());
    setDialog(next);
  };
  const close = () => setDialog(null);
  const tableName = (id: string) => tables.data?.list.find((table) => table.id === id)?.name ?? id;
  const selected = webhooks.data?.list.find((webhook) => webhook.id === selectedId) ?? null;

  return (
    <>
      <PageHeader title="Webhooks">
        <Button variant="primary" onPress={() => open({ kind: 'create' })}>
          New webhook
        </Button>
      </PageHeader>
      <ErrorBanner error={webhooks.error ?? update.error} />
      <ListState pending={webhooks.isPending} items={webhooks.data?.list} empty="No webhook yet.">
        <DataTable className="ops-table" label="Webhooks" columns={['Name', 'URL', 'Events', 'Tables', 'Status', 'Created', 'Actions']}>
          {webhooks.data?.list.map((webhook) => (
            <tr key={webhook.id} className={webhook.id === selectedId ? 'ops-selected' : undefined}>
              <th scope="row">{webhook.name}</th>
              <td className="ops-path">
                <code>{webhook.url}</code>
              </td>
              <td>{webhook.events.includes('*') ? 'All events' : webhook.events.join(', ')}</td>
              <td>{webhook.tableIds.length === 0 ? <span className="muted">All</span> : webhook.tableIds.map(tableName).join(', ')}</td>
              <td>
                <span className={`badge ${webhook.active ? 'badge-published' : 'badge-archived'}`}>{webhook.active ? 'Active' : 'Inactive'}</span>
                {webhook.disabledReason && <div className="muted">Disabled: {webhook.disabledReason}</div>}
              </td>
              <td>{when(webhook.createdAt)}</td>
              <td>
                <div className="ops-actions">
                  <Button aria-label={`Deliveries of ${webhook.name}`} aria-pressed={webhook.id === selectedId} onPress={() => setSelectedId(webhook.id === selectedId ? null : webhook.id)}>
                    Deliveries
                  </Button>
                  <Button aria-label={`Edit ${webhook.name}`} onPress={() => open({ kind: 'edit', webhook })}>
                    Edit
                  </Button>
                  <Button aria-label={`${webhook.active ? 'Deactivate' : 'Activate'} ${webhook.name}`} isDisabled={update.isPending} onPress={() => update.mutate({ webhookId: webhook.id, active: !webhook.active })}>
                    {webhook.active ? 'Deactivate' : 'Activate'}
                  </Button>
                  <Button aria-label={`Rotate secret of ${webhook.name}`} onPress={() => open({ kind: 'rotate', webhook })}>
                    Rotate secret
                  </Button>
                  <Button variant="danger" aria-label={`Delete ${webhook.name}`} onPress={() => open({ kind: 'delete', webhook })}>
                    Delete
                  </Button>
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      </ListState>

      {selected && <Deliveries key={selected.id} projectId={pid} webhook={selected} />}

      <ModalDialog title="New webhook" isOpen={dialog?.kind === 'create'} onClose={close}>
        <WebhookForm
          tables={tables.data?.list ?? []}
          submitLabel="Create webhook"
          error={create.error}
          isPending={create.isPending}
          onCancel={close}
          onSubmit={(values) =>
            create.mutate(values, {
              onSuccess: (created) => {
                close();
                setSelectedId(created.id);
                setSecret({ title: `Signing secret of “${created.name}”`, value: created.secret });
              },
            })
          }
        />
      </ModalDialog>

      {dialog?.kind === 'edit' && (
        <ModalDialog title={`Edit “${dialog.webhook.name}”`} isOpen onClose={close}>
          <WebhookForm
            initial={dialog.webhook}
            tables={tables.data?.list ?? []}
            submitLabel="Save"
            error={update.error}
            isPending={update.isPending}
            onCancel={close}
            onSubmit={(values) => update.mutate({ webhookId: dialog.webhook.id, ...values, name: values.name ?? dialog.webhook.name }, { onSuccess: close })}
          />
        </ModalDialog>
      )}

      <ConfirmDialog
        title={dialog?.kind === 'rotate' ? `Rotate the secret of “${dialog.webhook.name}”?` : 'Rotate'}
        isOpen={dialog?.kind === 'rotate'}
        confirmLabel="Rotate secret"
        isPending={rotate.isPending}
        error={rotate.error}
        onClose={close}
        onConfirm={() =>
          dialog?.kind === 'rotate' &&
          rotate.mutate(dialog.webhook.id, {
            onSuccess: (rotated) => {
              close();
              setSecret({ title: `New signing secret of “${rotated.name}”`, value: rotated.secret });
            },
          })
        }
      >
        <p>For 24 hours deliveries carry two signatures, with the new secret and the old one, so the receiver can switch without missing events.</p>
      </ConfirmDialog>

      <ConfirmDialog
        title={dialog?.kind === 'delete' ? `Delete “${dialog.webhook.name}”?` : 'Delete'}
        isOpen={dialog?.kind === 'delete'}
        confirmLabel="Delete webhook"
        isPending={remove.isPending}
        error={remove.error}
        onClose={close}
        onConfirm={() =>
          dialog?.kind === 'delete' &&
          remove.mutate(dialog.webhook.id, {
            onSuccess: () => {
              if (selectedId === dialog.webhook.id) setSelectedId(null);
              close();
            },
          })
        }
      >
        <p>Pending deliveries stop and its delivery history goes with it. This cannot be undone.</p>
      </ConfirmDialog>

      <SecretDialog title={secret?.title ?? ''} label="Signing secret" secret={secret?.value ?? null} onClose={() => setSecret(null)} />
    </>
  );
}
