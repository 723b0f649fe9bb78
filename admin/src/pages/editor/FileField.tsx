import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { FileTrigger } from 'react-aria-components';
import { uploadFile, type FileRecord } from 'tabula/client';
import type { Column } from '../../data/columns/queries.js';
import { errorText } from '../../data/errors.js';
import { fileKeys } from '../../data/files/keys.js';
import { useFile } from '../../data/files/queries.js';
import { useFileRights } from '../../data/files/rights.js';
import { useThumbnail } from '../files/thumbnail.js';
import { useFileTransport } from '../files/transport.js';
import { Button } from '../../ui/controls.js';

/** The preview's size: a thumbnail derived by the API (docs/resources.md#image-transformations), not the full image. */
const PREVIEW = { w: 240, h: 160, fit: 'inside', format: 'webp' } as const;

function FileItem({ projectId, fileId, onRemove, fieldLabel }: { projectId: string; fileId: string; onRemove(): void; fieldLabel: string }) {
  const file = useFile(projectId, fileId);
  const preview = useThumbnail(projectId, file.data, PREVIEW);
  const name = file.data?.name ?? (file.error ? 'Missing file' : 'Loading…');
  return (
    <li className="editor-file">
      {preview ? <img src={preview} alt={`Preview of ${name}`} className="editor-file-preview" /> : <span className="editor-file-icon" aria-hidden="true">▤</span>}
      <span className="editor-file-name">
        {name}
        {file.data && <span className="muted"> · {formatSize(file.data.size)}</span>}
      </span>
      <Button variant="ghost" aria-label={`Remove ${name} from ${fieldLabel}`} onPress={onRemove}>
        Remove
      </Button>
    </li>
  );
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * A file column: the chosen file(s) by name with an image thumbnail, and an upload
 * button that stores a new file in the project and puts its id in the column.
 */
export function FileField({ projectId, column, label, value, onChange, error }: {
  projectId: string;
  column: Column;
  label: string;
  value: string | string[] | null;
  onChange(value: string | string[] | null): void;
  error?: string;
}) {
  const transport = useFileTransport();
  const queries = useQueryClient();
  // Uploading stores a new file: offered when the member may (a custom role needs a `$files` create rule).
  const { workspaceId } = useParams();
  const rights = useFileRights(workspaceId!, projectId);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<unknown>(null);
  const multiple = column.settings.multiple === true;
  const ids = Array.isArray(value) ? value : value ? [value] : [];

  const upload = async (files: FileList | null) => {
    const chosen = files ? [...files] : [];
    if (chosen.length === 0) return;
    setUploading(true);
    setUploadError(null);
    try {
      const records: FileRecord[] = [];
      for (const file of multiple ? chosen : chosen.slice(0, 1)) records.push(await uploadFile(transport, projectId, file));
      for (const record of records) queries.setQueryData(fileKeys.detail(projectId, record.id), record);
      onChange(multiple ? [...ids, ...records.map((r) => r.id)] : records[0].id);
    } catch (failure) {
      setUploadError(failure);
    } finally {
      setUploading(false);
    }
  };

  const shown = error ?? (uploadError ? errorText(uploadError) : undefined);
  return (
    <div className="field" role="group" aria-labelledby={`file-${column.id}`} aria-describedby={shown ? `file-${column.id}-error` : undefined}>
      <span className="field-label" id={`file-${column.id}`}>
        {label}
      </span>
      {ids.length > 0 && (
        <ul className="editor-files">
          {ids.map((id) => (
            <FileItem key={id} projectId={projectId} fileId={id} fieldLabel={label} onRemove={() => onChange(multiple ? ids.filter((x) => x !== id) : null)} />
          ))}
        </ul>
      )}
      {rights.upload ? (
        <div className="row">
          <FileTrigger allowsMultiple={multiple} onSelect={(files) => void upload(files)}>
            <Button isDisabled={uploading}>{uploading ? 'Uploading…' : ids.length > 0 && !multiple ? `Replace ${label}` : `Upload ${label}`}</Button>
          </FileTrigger>
        </div>
      ) : (
        ids.length === 0 && <span className="muted">No file.</span>
      )}
      {shown && (
        <span className="field-error" id={`file-${column.id}-error`} role="alert">
          {shown}
        </span>
      )}
    </div>
  );
}
