import type { z } from 'zod';

/**
 * The base of every error this package throws for a reason of its own, so a caller can tell them
 * from failures of the libraries underneath. Each subclass is named after its class.
 */
export abstract class AvatarPipelineError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One refused field: its dotted path ('' for the whole input) and why. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * Input refused before anything was done, each issue naming the field and the reason. The CLI
 * exits 2 on it; the API answers 422 with the issues.
 */
export class InputError extends AvatarPipelineError {
  readonly issues: InputIssue[];

  constructor(issues: InputIssue[], message = listMessage('Invalid input', issues)) {
    super(message);
    this.issues = issues;
  }

  /** One refused field: "Invalid <field>: <reason>". */
  static field(field: string, reason: string): InputError {
    return new InputError([{ path: field, message: reason }], `Invalid ${field}: ${reason}`);
  }

  static fromZod(error: z.ZodError, prefix: (string | number)[] = []): InputError {
    return new InputError(
      error.issues.map((issue) => ({
        path: [...prefix, ...issue.path].map(String).join('.'),
        message: issue.message,
      })),
    );
  }
}

/** "<title>:" and one line per issue. */
export function listMessage(title: string, issues: InputIssue[]): string {
  return `${title}:\n${issues.map((i) => `  ${i.path || '(input)'}: ${i.message}`).join('\n')}`;
}
