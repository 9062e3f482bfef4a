import type { Issue } from '../api';

/** The API's messages about one field, shown next to it (the field points here with aria-describedby). */
export function FieldError({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <p class="field-error" id={id}>
      {messages.join('; ')}
    </p>
  );
}

/**
 * Sorts the API's issues by form field: `fieldOf` names the field of an issue path (`styles.2` →
 * `styles`), or undefined for a problem of the whole request.
 */
export function issuesByField(
  issues: Issue[],
  fieldOf: (path: string) => string | undefined,
): { byField: Record<string, string[]>; general: string[] } {
  const byField: Record<string, string[]> = {};
  const general: string[] = [];
  for (const issue of issues) {
    const field = fieldOf(issue.path);
    if (field) (byField[field] ??= []).push(issue.message);
    else general.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message);
  }
  return { byField, general };
}
