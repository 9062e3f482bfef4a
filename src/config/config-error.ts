/** A bad environment value: names each variable and why it was refused. The CLI exits 2 on it. */
export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; reason: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.reason}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
