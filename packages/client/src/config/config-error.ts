import { InputError, listMessage } from '../errors';

/** A bad environment value: names each variable and why it was refused. The CLI exits 2 on it. */
export class ConfigError extends InputError {
  constructor(readonly problems: { variable: string; reason: string }[]) {
    const issues = problems.map((p) => ({ path: p.variable, message: p.reason }));
    super(issues, listMessage('Invalid configuration', issues));
  }
}
