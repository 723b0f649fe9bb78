import { useEffect, useState } from 'react';
import { fileContent, type FileRecord } from 'tabula/client';
import { useFileTransport } from './transport.js';

/** A thumbnail derived by the API's image transforms (docs/resources.md#image-transformations). */
const THUMB = { w: 160, h: 120, fit: 'cover', format: 'webp' } as const;

/**
 * An image file's thumbnail as a blob: URL (the CSP allows blob: images; the bytes need the
 * credential, so an <img src> to the API cannot fetch them), revoked when it goes. Other files
 * show their type.
 */
export function FileThumb({ projectId, file }: { projectId: string; file: FileRecord }) {
  const transport = useFileTransport();
  const [url, setUrl] = useState<string | null>(null);
  const image = file.mimeType.startsWith('image/');
  useEffect(() => {
    if (!image) return;
    let live = true;
    let objectUrl: string | null = null;
    fileContent(transport, projectId, file.id, THUMB).then(
      (blob) => {
        if (!live) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      },
      // An image the API cannot derive from shows its type instead.
      () => undefined,
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      setUrl(null);
    };
    // New bytes (a replace) change the sha256; the token does not change while the page is open.
  }, [projectId, file.id, file.sha256, image]);
  if (url) return <img className="library-thumb" src={url} alt="" />;
  const kind = (file.mimeType.split('/')[1] ?? file.mimeType).slice(0, 8).toUpperCase();
  return (
    <span className="library-thumb library-thumb-type" aria-hidden="true">
      {kind}
    </span>
  );
}
