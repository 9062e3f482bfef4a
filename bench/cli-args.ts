/** The value after `--<name>` on a benchmark's command line, if given (else `fallback`). */
export function stringArg(argv: readonly string[], name: string): string | undefined;
export function stringArg(argv: readonly string[], name: string, fallback: string): string;
export function stringArg(argv: readonly string[], name: string, fallback?: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return (i >= 0 ? argv[i + 1] : undefined) || fallback;
}

/** The number after `--<name>`, or `fallback` when the option is not given. */
export function numberArg(argv: readonly string[], name: string, fallback: number): number {
  const value = stringArg(argv, name);
  return value ? Number(value) : fallback;
}
