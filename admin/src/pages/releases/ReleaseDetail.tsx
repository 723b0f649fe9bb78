import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { contentsKeys } from '../../data/contents/keys.js';
import { releasesKeys } from '../../data/releases/keys.js';
import { useRelease } from '../../data/releases/queries.js';
import { useTables } from '../../data/tables/queries.js';
import { ConfirmButton } from '../../ui/ConfirmDialog.js';
import { Button, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { Empty, ErrorBanner, Loading, PageHeader } from '../../ui/feedback.js';
import { isoToLocal, localToIso, when } from '../../ui/format.js';

const ACTIONS: Record<string, string> = { publish: 'Publish', unpublish: 'Unpublish', publishDraft: 'Publish its draft' };

/**
 * One release (docs/releases.md): its items, each with its row's state now and whether it would
 * pass if the release were published now (and why not); publish now, (re)schedule, unschedule,
 * remove an item, delete the release.
 */
export function ReleaseDetailPage() {
  const { workspaceId, projectId, releaseId } = useParams() as { workspaceId: string; projectId: string; releaseId: string };
  const navigate = useNavigate();
  const release = useRelease(projectId, releaseId);
  const tables = useTables(projectId);
  const [publishAt, setPublishAt] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const invalidates = [releasesKeys.all(projectId), contentsKeys.all(projectId)];
  const publish = useApiMutation((client) => client.releases.publish.mutate({ projectId, releaseId }), invalidates);
  const schedule = useApiMutation((client, at: string | null) => client.releases.update.mutate({ projectId, releaseId, publishAt: at }), invalidates);
  const removeItem = useApiMutation((client, itemId: string) => client.releases.removeItem.mutate({ projectId, releaseId, itemId }), invalidates);
  const remove = useApiMutation((client) => client.releases.delete.mutate({ projectId, releaseId }), [releasesKeys.all(projectId)]);
  const base = `/w/${workspaceId}/p/${projectId}`;
  const tableName = (id: string) => tables.data?.list.find((t) => t.id === id)?.name ?? id;

  if (release.isPending) return <Loading />;
  if (!release.data) return <ErrorBanner error={release.error} />;
  const r = release.data;
  const isOpen = r.status === 'open';
  const failing = r.items.filter((i) => !i.wouldPass).length;
  const scheduleValue = publishAt ?? isoToLocal(r.publishAt);
  const error = publish.error ?? schedule.error ?? removeItem.error ?? remove.error;

  return (
    <>
      <PageHeader title={r.name}>
        <Link to={`${base}/releases`}>All releases</Link>
      </PageHeader>
      <p role="status" className={notice ? 'banner banner-ok' : 'editor-status-empty'}>
        {notice}
      </p>
      <ErrorBanner error={error} />
      <section className="card stack" aria-labelledby="release-state">
        <h2 id="release-state">{isOpen ? (r.publishAt ? `Scheduled for ${when(r.publishAt)}` : 'Open') : `Published ${when(r.publishedAt)}`}</h2>
        {r.failure && <p className="banner banner-warn">The scheduled publish failed: {r.failure.message}</p>}
        {isOpen && (
          <>
            <p>{r.items.length === 0 ? 'No rows yet.' : failing === 0 ? `All ${r.items.length} items would pass now.` : `${failing} of ${r.items.length} items would not pass now: publishing would fail and change nothing.`}</p>
            <div className="row">
              <ConfirmButton
                label="Publish now"
                title="Publish this release now?"
                confirmLabel="Publish"
                isDisabled={r.items.length === 0}
                onConfirm={async () => {
                  setNotice(null);
                  await publish.mutateAsync(undefined);
                  setNotice('Release published.');
                }}
              >
                <p>Every item is applied in one go: {r.items.length} rows. If one fails, none changes.</p>
              </ConfirmButton>
            </div>
            <form
              className="row"
              aria-label="Schedule"
              onSubmit={(event) => {
                event.preventDefault();
                const at = localToIso(scheduleValue);
                if (!at) return;
                setNotice(null);
                void schedule.mutateAsync(at).then(() => { setPublishAt(null); setNotice(`Scheduled for ${when(at)}.`); });
              }}
            >
              <TextInput label="Publish at" type="datetime-local" value={scheduleValue} onChange={setPublishAt} description="Your local time." />
              <Button type="submit" isDisabled={!scheduleValue || schedule.isPending}>
                Schedule
              </Button>
              {r.publishAt && (
                <Button onPress={() => void schedule.mutateAsync(null).then(() => { setPublishAt(null); setNotice('Unscheduled.'); })}>Unschedule</Button>
              )}
            </form>
          </>
        )}
      </section>
      {r.items.length === 0 ? (
        <Empty>No rows in this release. Add some from a table's list (select rows, then “Add to release”).</Empty>
      ) : (
        <DataTable label="Items" columns={['Row', 'Table', 'Action', 'Now', 'Would pass', isOpen && <span className="visually-hidden">Remove</span>]}>
          {r.items.map((item) => (
            <tr key={item.id}>
              <th scope="row">
                <Link to={`${base}/tables/${item.tableId}/rows/${item.contentsId}`}>{item.contentsId}</Link>
              </th>
              <td>{tableName(item.tableId)}</td>
              <td>{ACTIONS[item.action] ?? item.action}</td>
              <td>{item.current ? `${item.current.status.toLowerCase()}, version ${item.current.version}${item.current.hasDraft ? ', has a draft' : ''}` : 'deleted'}</td>
              <td>{item.wouldPass ? 'Yes' : `No: ${item.problem?.message ?? 'it would fail'}`}</td>
              {isOpen && (
                <td>
                  <Button variant="ghost" aria-label={`Remove ${item.contentsId} from the release`} onPress={() => void removeItem.mutateAsync(item.id)}>
                    Remove
                  </Button>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {isOpen && (
        <section className="card stack" aria-labelledby="delete-release">
          <h2 id="delete-release">Delete</h2>
          <ConfirmButton
            label="Delete release"
            title="Delete this release?"
            confirmLabel="Delete"
            onConfirm={async () => {
              await remove.mutateAsync(undefined);
              navigate(`${base}/releases`, { replace: true });
            }}
          >
            <p>The release and its list of items go; the rows stay as they are.</p>
          </ConfirmButton>
        </section>
      )}
    </>
  );
}
