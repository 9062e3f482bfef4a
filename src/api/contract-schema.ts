import type { z } from 'zod';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Each assignable to the other, with the same field names (optional ones included). */
type Matches<S extends z.ZodType, T> =
  Same<z.output<S>, T> extends true ? Same<keyof z.output<S>, keyof T> : false;

/**
 * Ties a response schema to the contract type it answers. The contracts are plain types (workflow
 * code imports them), while the API needs zod schemas to serialize and document its answers; here
 * the schema's output and the type must match (each assignable to the other, the same field names),
 * so a field added, dropped or retyped on either side stops the build until the other follows.
 * Nested objects are checked as far as assignability goes; tie a nested schema of its own type too.
 *
 * ```ts
 * const resultSchema = answering<PipelineResult>()(z.object({ … }));
 * ```
 */
export function answering<T>() {
  return <S extends z.ZodType<T>>(
    schema: S,
    // A mismatch asks for an argument nobody can give: the call does not compile.
    ..._mismatch: Matches<S, T> extends true ? [] : [never]
  ): S => schema;
}
