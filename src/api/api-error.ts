import { z } from 'zod';
import { AvatarPipelineError, InputError } from '@avatar-pipeline/client/errors';

export interface ApiIssue {
  /** Dotted field path, e.g. `styles.0`, `selfies.2`, `headers.idempotency-key`; '' for the whole request. */
  path: string;
  message: string;
}

/** Every error the API answers has this one shape. */
export const errorBodySchema = z
  .object({
    error: z.string().describe('What went wrong, in one sentence'),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .describe('One entry per refused field; empty when no single field is at fault'),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** An answer lists at most this many issues (the first ones) and says how many there were. */
export const MAX_LISTED_ISSUES = 100;

/** An error with its HTTP status, thrown by handlers and answered by the error handler. */
export class ApiError extends AvatarPipelineError {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly issues: ApiIssue[] = [],
  ) {
    super(message);
  }

  /** 422 for a request that parsed but breaks the schema; `rename` maps a path's first segment. */
  static fromInputError(err: InputError, rename: Record<string, string> = {}): ApiError {
    return ApiError.invalid(
      err.issues.map((issue) => {
        const [head = '', ...rest] = issue.path.split('.');
        return {
          path: [rename[head] ?? head, ...rest].filter((p) => p !== '').join('.'),
          message: issue.message,
        };
      }),
    );
  }

  static invalid(issues: ApiIssue[]): ApiError {
    return new ApiError(422, 'The request is invalid', issues);
  }

  /**
   * A listing's page could not be read for the query: a cursor of the right form that names no page
   * this listing handed out is 404 "No such page"; any other issue is 422. Other errors pass on.
   */
  static fromListingError(err: unknown): unknown {
    if (!(err instanceof InputError)) return err;
    const issues = err.issues.map((i) => ({ ...i, path: `querystring.${i.path}` }));
    if (err.issues.every((i) => i.path === 'cursor'))
      return new ApiError(404, 'No such page: the cursor is not one this listing handed out', issues);
    return ApiError.invalid(issues);
  }

  body(): ErrorBody {
    if (this.issues.length <= MAX_LISTED_ISSUES) return { error: this.message, issues: this.issues };
    return {
      error: `${this.message} (the first ${MAX_LISTED_ISSUES} of ${this.issues.length} issues are listed)`,
      issues: this.issues.slice(0, MAX_LISTED_ISSUES),
    };
  }
}
