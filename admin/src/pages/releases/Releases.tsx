import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { releasesKeys } from '../../data/releases/keys.js';
import { useReleases } from '../../data/releases/queries.js';
import { Button, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, ModalDialog, PageHeader, Pager } from '../../ui/feedback.js';
import { localToIso, when } from '../../ui/format.js';

/**
 * A project's releases (docs/releases.md), newest first: open or published, scheduled or not,
 * and a failed schedule's reason. Rows are added to a release from the contents list's bulk
 * actions; a release's page shows its items and publishes or schedules it.
 */
export function ReleasesPage() {
  const { workspaceId, projectId } = useParams() as { workspaceId: string; projectId: string };
  const [page, setPage] = useState(1);
  const releases = useReleases(projectId, page);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [publishAt, setPublishAt] = useState('');
  const create = useApiMutation(
    (client, input: { name: string; publishAt?: string }) => client.releases.create.mutate({ projectId, ...input }),
    [releasesKeys.all(projectId)],
  );
  const base = `/w/${workspaceId}/p/${projectId}/releases`;

  return (
    <>
      <PageHeader title="Releases">
        <Button variant="primary" onPress={() => { create.reset(); setCreating(true); }}>
          New release
        </Button>
      </PageHeader>
      <p className="muted">Rows published together, now or at a set time. Add rows from a table's list: select them, then “Add to release”.</p>
      <ErrorBanner error={releases.error} />
      <ListState pending={releases.isPending} items={releases.data?.list} empty="No release yet.">
        <DataTable label="Releases" columns={['Name', 'Status', 'Publish at', 'Published']}>
          {releases.data?.list.map((r) => (
            <tr key={r.id}>
              <th scope="row">
                <Link to={`${base}/${r.id}`}>{r.name}</Link>
              </th>
              <td>
                <span className={`badge ${r.status === 'published' ? 'badge-published' : r.publishAt ? 'badge-scheduled' : 'badge-draft'}`}>
                  {r.status === 'published' ? 'Published' : r.publishAt ? 'Scheduled' : 'Open'}
                </span>
                {r.failure && <span className="field-error"> Scheduled publish failed: {r.failure.message}</span>}
              </td>
              <td>{when(r.publishAt)}</td>
              <td>{when(r.publishedAt)}</td>
            </tr>
          ))}
        </DataTable>
      </ListState>
      {releases.data && (page > 1 || releases.data.pagination.hasNext) && (
        <Pager page={page} pages={releases.data.pagination.pages ?? null} total={releases.data.pagination.total} onPage={setPage} />
      )}
      <ModalDialog title="New release" isOpen={creating} onClose={() => setCreating(false)}>
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            void create.mutateAsync({ name: name.trim(), publishAt: localToIso(publishAt) }).then(() => {
              setCreating(false);
              setName('');
              setPublishAt('');
            });
          }}
        >
          <TextInput label="Name" value={name} onChange={setName} isRequired />
          <TextInput label="Publish at (optional)" type="datetime-local" value={publishAt} onChange={setPublishAt} description="Your local time. Empty: published only when you say so." />
          <ErrorBanner error={create.error} />
          <div className="dialog-actions">
            <Button onPress={() => setCreating(false)}>Cancel</Button>
            <Button type="submit" variant="primary" isDisabled={create.isPending || name.trim() === ''}>
              Create release
            </Button>
          </div>
        </form>
      </ModalDialog>
    </>
  );
}
