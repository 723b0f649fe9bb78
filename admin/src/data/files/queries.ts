import { useQueries } from '@tanstack/react-query';
import { useApi } from '../api.js';
import { useClient } from '../session/session.js';
import { fileKeys } from './keys.js';

/** A file's record (name, type, size). An upload puts its record under the same key. */
export function useFile(projectId: string, fileId: string) {
  return useApi(fileKeys.detail(projectId, fileId), (client) => client.files.get.query({ projectId, fileId }));
}

/** The records of each of `fileIds`, in that order; a deleted file is an error, not retried. */
export function useFiles(projectId: string, fileIds: string[]) {
  const client = useClient();
  return useQueries({
    queries: fileIds.map((fileId) => ({
      queryKey: fileKeys.detail(projectId, fileId),
      queryFn: () => client.files.get.query({ projectId, fileId }),
      retry: false,
    })),
  });
}

/** A page of the file library, newest first; the page shown stays while the next loads. */
export function useFilePage(projectId: string, search: string, page: number, size: number) {
  return useApi(
    fileKeys.page(projectId, search, page, size),
    (client) => client.files.list.query({ projectId, page, size, sort: '-createdAt', ...(search ? { search } : {}) }),
    { keepPrevious: true },
  );
}

/** The rows (the caller reads) that hold a file. */
export function useFileUsedBy(projectId: string, fileId: string) {
  return useApi(fileKeys.usedBy(projectId, fileId), (client) => client.files.usedBy.query({ projectId, fileId }));
}
