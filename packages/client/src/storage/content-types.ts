/** The content types this package stores, by file extension (the filesystem keeps no metadata). */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  json: 'application/json',
};

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

export function contentTypeOfKey(key: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase();
  return (extension !== undefined ? BY_EXTENSION[extension] : undefined) ?? DEFAULT_CONTENT_TYPE;
}

/** The extension for a content type, `bin` for anything not listed. */
export function extensionOf(contentType: string): string {
  const base = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (base === 'image/jpeg') return 'jpg';
  const found = Object.entries(BY_EXTENSION).find(([, type]) => type === base);
  return found ? found[0] : 'bin';
}
