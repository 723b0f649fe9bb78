import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { replaceFile, uploadFile } from 'tabula/client';
import { errorText } from '../../data/errors.js';
import { fileKeys } from '../../data/files/keys.js';
import { useFileTransport } from './transport.js';

export interface Upload {
  id: number;
  name: string;
  loaded: number;
  total: number;
  state: 'sending' | 'done' | 'failed';
  error?: string;
}

/** Most uploads sent at once: the others wait their turn (the browser keeps a few connections per host). */
const PARALLEL = 3;

let nextId = 1;

/**
 * Uploads (and replaces) through the typed client, each with its progress; the library's pages
 * are read again when a file is in.
 */
export function useUploads(projectId: string) {
  const transport = useFileTransport();
  const queries = useQueryClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const patch = (id: number, change: Partial<Upload>) => setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...change } : u)));

  const send = async (file: File, replacing?: string) => {
    const id = nextId++;
    setUploads((list) => [...list, { id, name: file.name, loaded: 0, total: file.size, state: 'sending' }]);
    const progress = (loaded: number, total: number) => patch(id, { loaded, total });
    try {
      const record = replacing ? await replaceFile(transport, projectId, replacing, file, undefined, progress) : await uploadFile(transport, projectId, file, undefined, progress);
      queries.setQueryData(fileKeys.detail(projectId, record.id), record);
      patch(id, { state: 'done', loaded: file.size, total: file.size });
    } catch (error) {
      patch(id, { state: 'failed', error: errorText(error) });
    }
  };

  const upload = async (files: File[]) => {
    const queue = [...files];
    await Promise.all(
      Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
        for (let file = queue.shift(); file; file = queue.shift()) await send(file);
      }),
    );
    await queries.invalidateQueries({ queryKey: fileKeys.all(projectId) });
  };

  const replace = async (fileId: string, file: File) => {
    await send(file, fileId);
    await queries.invalidateQueries({ queryKey: fileKeys.all(projectId) });
  };

  return { uploads, upload, replace, clear: () => setUploads((list) => list.filter((u) => u.state === 'sending')) };
}
