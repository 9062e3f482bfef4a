/** The value after `--<name>` on a benchmark's command line, if given. */
export function stringArg(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}
