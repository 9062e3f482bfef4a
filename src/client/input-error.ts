import type { z } from 'zod';

/** Input refused before anything started; `issues` carry the field path and the reason. */
export class PipelineInputError extends Error {
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`Invalid input:\n${issues.map((i) => `  ${i.path || '(input)'}: ${i.message}`).join('\n')}`);
    this.name = 'PipelineInputError';
  }

  static fromZod(error: z.ZodError, prefix: (string | number)[] = []): PipelineInputError {
    return new PipelineInputError(
      error.issues.map((issue) => ({
        path: [...prefix, ...issue.path].map(String).join('.'),
        message: issue.message,
      })),
    );
  }
}
