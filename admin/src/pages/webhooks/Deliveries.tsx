import { useState } from 'react';
import { useApiMutation } from '../../data/api.js';
import { webhookKeys } from '../../data/webhooks/keys.js';
import { useDeliveries } from '../../data/webhooks/queries.js';
import { Button } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, Pager } from '../../ui/feedback.js';
import { whenPrecise } from '../../ui/format.js';
import type { Webhook } from './WebhookForm.js';

const PAGE_SIZE = 20;

const delivered = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** One webhook's delivery attempts, newest first, each with a Retry that delivers its event again. */
export function Deliveries({ projectId, webhook }: { projectId: string; webhook: Webhook }) {
  const [page, setPage] = useState(1);
  const deliveries = useDeliveries(projectId, webhook.id, page, PAGE_SIZE);
  const retry = useApiMutation((c, deliveryId: string) => c.webhooks.retryDelivery.mutate({ projectId, webhookId: webhook.id, deliveryId }), [
    webhookKeys.deliveries(projectId, webhook.id),
  ]);
  return (
    <section aria-labelledby="deliveries-title" className="ops-section">
      <div className="row">
        <h2 id="deliveries-title">Deliveries of “{webhook.name}”</h2>
        <Button variant="ghost" onPress={() => deliveries.refetch()}>
          Refresh
        </Button>
      </div>
      <ErrorBanner error={deliveries.error ?? retry.error} />
      <p role="status" className="muted ops-status">
        {retry.isSuccess && retry.data ? `Retried: attempt ${retry.data.attempt} answered ${retry.data.statusCode ?? 'nothing'}.` : ''}
      </p>
      <ListState pending={deliveries.isPending} items={deliveries.data?.list} empty="No delivery yet: one is made for each event this webhook receives.">
        <DataTable className="ops-table" label="Deliveries" columns={['Time', 'Event', 'Attempt', 'Status', 'Duration', 'Error', 'Event id', 'Actions']}>
          {deliveries.data?.list.map((delivery) => (
            <tr key={delivery.id}>
              <td className="ops-nowrap">{whenPrecise(delivery.createdAt)}</td>
              <td>
                <code>{delivery.type}</code>
              </td>
              <td>{delivery.attempt}</td>
              <td>
                <span className={`badge ${delivered(delivery.statusCode) ? 'badge-published' : 'badge-error'}`}>{delivery.statusCode ?? 'No response'}</span>
              </td>
              <td>{delivery.durationMs} ms</td>
              <td>{delivery.error ?? ''}</td>
              <td>
                <code title={delivery.eventId}>{delivery.eventId.slice(-12)}</code>
              </td>
              <td>
                <div className="ops-actions">
                  <Button aria-label={`Retry attempt ${delivery.attempt} of ${delivery.type} at ${whenPrecise(delivery.createdAt)}`} isDisabled={retry.isPending} onPress={() => retry.mutate(delivery.id)}>
                    Retry
                  </Button>
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
        {deliveries.data && <Pager page={page} pages={deliveries.data.pagination.pages} total={deliveries.data.pagination.total} onPage={setPage} />}
      </ListState>
    </section>
  );
}
