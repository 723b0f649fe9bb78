import { useEffect, useRef, useState } from 'react';
import { FileTrigger } from 'react-aria-components';
import { useParams, useSearchParams } from 'react-router';
import type { FileRecord } from 'tabula/client';
import { useFilePage } from '../../data/files/queries.js';
import { useFileRights } from '../../data/files/rights.js';
import { Button, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, PageHeader, Pager } from '../../ui/feedback.js';
import { bytes, when } from '../../ui/format.js';
import { FileDetails } from './FileDetails.js';
import { FileThumb } from './FileThumb.js';
import { useUploads, type Upload } from './uploads.js';
import './FileLibrary.css';

/** Files a page shows: a library of 10,000 files is read one page at a time, newest first. */
const PAGE_SIZE = 48;
const PAUSE_MS = 300;

/**
 * The project's file library (docs/console.md#file-library): a grid of thumbnails or a list,
 * searched by name, paged; several files uploaded at once with their progress; a file's details
 * with where it is used, replace and delete. The view, search and page are in the address.
 */
export function FileLibraryPage() {
  const { workspaceId, projectId } = useParams();
  const pid = projectId!;
  // Upload is offered only to who may upload: a built-in role that writes, or a custom role whose `$files` rules allow it.
  const rights = useFileRights(workspaceId!, pid);
  const [params, setParams] = useSearchParams();
  const view = params.get('view') === 'list' ? 'list' : 'grid';
  const search = params.get('search') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  // The address as last rendered: a search sent after its pause must not undo a view chosen meanwhile.
  const latest = useRef(params);
  latest.current = params;
  const set = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(latest.current);
    for (const [k, v] of Object.entries(patch)) v === null || v === '' ? next.delete(k) : next.set(k, v);
    latest.current = next;
    setParams(next);
  };
  const files = useFilePage(pid, search, page, PAGE_SIZE);
  const { uploads, upload, replace, clear } = useUploads(pid);
  const [openId, setOpenId] = useState<string | null>(null);
  const opened = files.data?.list.find((f) => f.id === openId) ?? null;

  const [text, setText] = useState(search);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const typed = (next: string) => {
    setText(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => set({ search: next.trim(), page: null }), PAUSE_MS);
  };

  return (
    <>
      <PageHeader title="File library">
        {rights.upload && (
          <FileTrigger allowsMultiple onSelect={(chosen) => chosen && void upload([...chosen])}>
            <Button variant="primary">Upload files</Button>
          </FileTrigger>
        )}
      </PageHeader>
      <div className="toolbar library-toolbar">
        <form className="library-search" role="search" onSubmit={(event) => (event.preventDefault(), clearTimeout(timer.current), set({ search: text.trim(), page: null }))}>
          <TextInput label="Search files by name" type="search" value={text} onChange={typed} />
        </form>
        <div className="library-views" role="group" aria-label="View">
          <Button variant={view === 'grid' ? 'primary' : 'secondary'} aria-pressed={view === 'grid'} onPress={() => set({ view: null })}>
            Grid
          </Button>
          <Button variant={view === 'list' ? 'primary' : 'secondary'} aria-pressed={view === 'list'} onPress={() => set({ view: 'list' })}>
            List
          </Button>
        </div>
      </div>
      <UploadList uploads={uploads} onClear={clear} />
      <ErrorBanner error={files.error} />
      <ListState pending={files.isPending} items={files.data?.list} empty={search ? `No file's name contains “${search}”.` : 'No file yet.'}>
        {view === 'grid' ? (
          <ul className="library-grid" aria-label="Files">
            {files.data?.list.map((file) => (
              <li key={file.id}>
                <button type="button" className="library-card" onClick={() => setOpenId(file.id)}>
                  <FileThumb projectId={pid} file={file} />
                  <span className="library-name">{file.name}</span>
                  <span className="muted">{bytes(file.size)}</span>
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <DataTable className="ops-table" label="Files" columns={['Name', 'Type', 'Size', 'Added']}>
            {files.data?.list.map((file) => (
              <tr key={file.id}>
                <th scope="row">
                  <button type="button" className="library-link" onClick={() => setOpenId(file.id)}>
                    {file.name}
                  </button>
                </th>
                <td>{file.mimeType}</td>
                <td>{bytes(file.size)}</td>
                <td>{when(file.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      {files.data && (files.data.pagination.pages ?? 0) > 1 && (
        <Pager page={page} pages={files.data.pagination.pages} total={files.data.pagination.total} onPage={(p) => set({ page: String(p) })} />
      )}
      {opened && <FileDetails projectId={pid} file={opened as FileRecord} onReplace={(file) => replace(opened.id, file)} onClose={() => setOpenId(null)} />}
    </>
  );
}

function UploadList({ uploads, onClear }: { uploads: Upload[]; onClear(): void }) {
  if (uploads.length === 0) return null;
  const finished = uploads.every((u) => u.state !== 'sending');
  return (
    <section className="card library-uploads" aria-label="Uploads">
      <ul>
        {uploads.map((u) => (
          <li key={u.id}>
            <span className="library-name">{u.name}</span>
            <progress max={u.total || 1} value={u.loaded} aria-label={`Upload of ${u.name}`} />
            <span className={u.state === 'failed' ? 'field-error' : 'muted'}>
              {u.state === 'sending' ? `${Math.round((u.loaded / (u.total || 1)) * 100)}%` : u.state === 'done' ? 'Uploaded' : `Failed: ${u.error}`}
            </span>
          </li>
        ))}
      </ul>
      <p role="status" className="muted">
        {finished ? `${uploads.filter((u) => u.state === 'done').length} of ${uploads.length} uploaded.` : 'Uploading…'}
      </p>
      {finished && (
        <Button variant="ghost" onPress={onClear}>
          Clear the uploads
        </Button>
      )}
    </section>
  );
}
