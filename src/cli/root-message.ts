/** The innermost cause's message: for a failed workflow, what actually went wrong rather than "Workflow execution failed". */
export function rootMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
