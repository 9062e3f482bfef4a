/**
 * A model (or runtime) loaded at most once per process, at its first use: later callers share the
 * load in progress or its result. A failed load is forgotten, so the next caller tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}
