import { useEffect, useState } from 'react';
import { FileTrigger } from 'react-aria-components';
import { Link, useParams } from 'react-router';
import type { FileRecord } from 'tabula/client';
import { useApiMutation } from '../../data/api.js';
import { fileKeys } from '../../data/files/keys.js';
import { useFileRights } from '../../data/files/rights.js';
import { useFileUsedBy } from '../../data/files/queries.js';
import { useTables } from '../../data/tables/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button } from '../../ui/controls.js';
import { ErrorBanner, Loading, ModalDialog } from '../../ui/feedback.js';
import { bytes, when } from '../../ui/format.js';
import { FileThumb } from './FileThumb.js';

/**
 * One file: its facts, the rows that use it (those the person reads), replace and delete, each
 * offered when the member may do it to this file (a custom role's `$files` rules may allow some files only).
 */
export function FileDetails({ projectId, file, onReplace, onClose }: { projectId: string; file: FileRecord; onReplace(file: File): Promise<void>; onClose(): void }) {
  const { workspaceId } = useParams();
  const rights = useFileRights(workspaceId!, projectId, file.id);
  const usedBy = useFileUsedBy(projectId, file.id);
  const tables = useTables(projectId);
  const [confirming, setConfirming] = useState(false);
  const remove = useApiMutation((client) => client.files.delete.mutate({ projectId, fileId: file.id }), [fileKeys.all(projectId)]);
  const tableName = (id: string) => tables.data?.list.find((t) => t.id === id)?.name ?? 'A table';
  // A table made since the tables were read (its event not in yet): read them again to name it.
  const unknownTable = tables.data && usedBy.data?.list.some((row) => !tables.data.list.some((t) => t.id === row.tableId));
  useEffect(() => {
    if (unknownTable) void tables.refetch();
  }, [unknownTable]);
  return (
    <ModalDialog title={file.name} isOpen onClose={onClose}>
      <div className="library-details">
        <FileThumb projectId={projectId} file={file} />
        <dl className="library-facts">
          <dt>Type</dt>
          <dd>{file.mimeType}</dd>
          <dt>Size</dt>
          <dd>{bytes(file.size)}</dd>
          <dt>Added</dt>
          <dd>{when(file.createdAt)}</dd>
          <dt>Changed</dt>
          <dd>{when(file.updatedAt)}</dd>
        </dl>
      </div>
      <h3>Used by</h3>
      <ErrorBanner error={usedBy.error} />
      {usedBy.isPending ? (
        <Loading />
      ) : usedBy.data?.list.length === 0 ? (
        <p className="muted">No row you can read uses this file.</p>
      ) : (
        <ul className="library-used" aria-label="Rows using this file">
          {usedBy.data?.list.map((row) => (
            <li key={row.id}>
              <Link to={`/w/${workspaceId}/p/${projectId}/tables/${row.tableId}/rows/${row.id}`}>
                {tableName(row.tableId)}: {row.slug ?? row.id}
              </Link>{' '}
              <span className={`badge badge-${row.status.toLowerCase()}`}>{row.status}</span>
            </li>
          ))}
          {usedBy.data?.hasMore && <li className="muted">and more</li>}
        </ul>
      )}
      <ErrorBanner error={remove.error} />
      <div className="dialog-actions">
        {rights.replace && (
          <FileTrigger onSelect={(chosen) => chosen?.[0] && void onReplace(chosen[0])}>
            <Button>Replace…</Button>
          </FileTrigger>
        )}
        {rights.delete && (
          <Button variant="danger" onPress={() => (remove.reset(), setConfirming(true))}>
            Delete
          </Button>
        )}
        <Button variant="primary" onPress={onClose}>
          Close
        </Button>
      </div>
      <ConfirmDialog
        title={`Delete “${file.name}”?`}
        isOpen={confirming}
        confirmLabel="Delete file"
        isPending={remove.isPending}
        error={remove.error}
        onClose={() => setConfirming(false)}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => (setConfirming(false), onClose()) })}
      >
        <p>A file that rows still use cannot be deleted: remove it from them first.</p>
      </ConfirmDialog>
    </ModalDialog>
  );
}
