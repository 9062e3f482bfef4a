import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

/** One problem with a manifest: where (line of the file, field as a zod-style path) and why. */
export interface ManifestIssue {
  /** 1-based line of the file on which the row starts (the CSV header is line 1). */
  row: number;
  /** The row's subject id, when it has a readable one. */
  subjectId?: string;
  /** The field, as a path: "styles.1", "selfies.0", "subjectId"; "(row)" or "(file)" for the whole. */
  field: string;
  message: string;
}

export function describeIssue(issue: ManifestIssue): string {
  const who = issue.subjectId ? ` (subject ${issue.subjectId})` : '';
  return `line ${issue.row}${who}: ${issue.field}: ${issue.message}`;
}

/** The manifest was refused before anything started; every issue is listed. */
export class ManifestError extends AvatarPipelineError {
  constructor(
    readonly issues: ManifestIssue[],
    readonly rows: number,
    shown = 50,
  ) {
    const lines = issues.slice(0, shown).map((issue) => `  ${describeIssue(issue)}`);
    if (issues.length > shown) lines.push(`  … and ${issues.length - shown} more`);
    const badRows = new Set(issues.map((i) => i.row)).size;
    super(
      `Invalid manifest: ${issues.length} problem${issues.length === 1 ? '' : 's'} in ${badRows} of ${rows} row${rows === 1 ? '' : 's'}; nothing was started\n${lines.join('\n')}`,
    );
  }
}
