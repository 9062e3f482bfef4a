/** Exit codes of the `avatar-pipeline` command (docs/contracts.md). */
export const EXIT = {
  ok: 0,
  /** The pipeline or campaign failed. */
  failed: 1,
  /** Bad input or configuration; the message names the field and why. */
  badInput: 2,
} as const;
