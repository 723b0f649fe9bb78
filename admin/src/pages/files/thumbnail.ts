import { useEffect, useState } from 'react';
import { fileContent, type FileRecord } from 'tabula/client';
import { useFileTransport } from './transport.js';

/** A thumbnail derived by the API's image transforms (docs/resources.md#image-transformations). */
export type ThumbnailSize = NonNullable<Parameters<typeof fileContent>[3]>;

/**
 * An image file's thumbnail as a blob: URL while the component shows it, revoked when it goes
 * (the CSP allows blob: images; the bytes need the credential, so an <img src> to the API cannot
 * fetch them). Null for other files, and for an image the API cannot derive from.
 */
export function useThumbnail(projectId: string, file: FileRecord | undefined, size: ThumbnailSize): string | null {
  const transport = useFileTransport();
  const [url, setUrl] = useState<string | null>(null);
  const image = file?.mimeType.startsWith('image/') ? file : undefined;
  useEffect(() => {
    if (!image) return;
    let live = true;
    let objectUrl: string | null = null;
    fileContent(transport, projectId, image.id, size).then(
      (blob) => {
        if (!live) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      },
      () => undefined,
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      setUrl(null);
    };
    // The token and origin do not change while the page is open; the file's bytes do (sha256).
  }, [projectId, image?.id, image?.sha256]);
  return url;
}
