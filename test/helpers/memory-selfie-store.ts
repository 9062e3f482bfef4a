import type { SelfieStore } from '@avatar-pipeline/client/client/selfie-bytes';

/** A selfie store that keeps objects in a map, in the order they were written. */
export function memoryStore(): SelfieStore & { objects: Map<string, Buffer> } {
  const objects = new Map<string, Buffer>();
  return {
    objects,
    put: (key, body, contentType) => {
      objects.set(key, body);
      return Promise.resolve({ key, bytes: body.length, contentType });
    },
    delete: (key) => {
      objects.delete(key);
      return Promise.resolve();
    },
  };
}
