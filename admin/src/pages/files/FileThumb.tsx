import type { FileRecord } from 'tabula/client';
import { useThumbnail } from './thumbnail.js';

/** A thumbnail derived by the API's image transforms (docs/resources.md#image-transformations). */
const THUMB = { w: 160, h: 120, fit: 'cover', format: 'webp' } as const;

/** An image file's thumbnail; other files (and images the API cannot derive from) show their type. */
export function FileThumb({ projectId, file }: { projectId: string; file: FileRecord }) {
  const url = useThumbnail(projectId, file, THUMB);
  if (url) return <img className="library-thumb" src={url} alt="" />;
  const kind = (file.mimeType.split('/')[1] ?? file.mimeType).slice(0, 8).toUpperCase();
  return (
    <span className="library-thumb library-thumb-type" aria-hidden="true">
      {kind}
    </span>
  );
}
