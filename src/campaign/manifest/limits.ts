/**
 * What a manifest may hold. Every limit is enforced while the file is read, so a manifest past one
 * costs no more than reading up to it.
 */

/** Data rows per manifest: more is refused whole (split it into several campaigns). */
export const MAX_MANIFEST_ROWS = 10_000;

/** Bytes per manifest file or upload. */
export const MAX_MANIFEST_BYTES = 20 * 1024 * 1024;

/**
 * Bytes of one row (a CSV record, a JSONL line). A valid row holds at most 20 selfie references of
 * 2,048 characters and 100 style ids, well under this; a longer one is refused as it is read, so
 * no list in it is ever split or checked.
 */
export const MAX_MANIFEST_ROW_BYTES = 64 * 1024;

/** Rows that cannot be read at all (bad quoting, bad JSON, too long): past this, reading stops. */
export const MAX_UNREADABLE_ROWS = 100;

/** The pieces a manifest is read in; the event loop is free between two. */
export const MANIFEST_CHUNK_BYTES = 64 * 1024;
