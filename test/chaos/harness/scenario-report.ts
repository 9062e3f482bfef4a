/** What a scenario did, for the log (and the chaos suite's README figures). */
export class ScenarioReport {
  private readonly started = Date.now();
  private readonly lines: string[] = [];

  constructor(
    readonly scenario: string,
    readonly sizeLabel: string,
  ) {}

  note(line: string): void {
    this.lines.push(`+${((Date.now() - this.started) / 1000).toFixed(1)}s ${line}`);
  }

  get seconds(): number {
    return (Date.now() - this.started) / 1000;
  }

  /** Written to stderr at the end of a scenario, pass or fail. */
  print(outcome: 'passed' | 'failed'): void {
    const head = `[chaos] ${this.scenario} (${this.sizeLabel}) ${outcome} in ${this.seconds.toFixed(1)} s`;
    process.stderr.write([head, ...this.lines.map((line) => `  ${line}`)].join('\n') + '\n');
  }
}

/** Runs a scenario body with its report, printing the report whatever happens. */
export async function reported<T>(
  report: ScenarioReport,
  body: (report: ScenarioReport) => Promise<T>,
): Promise<T> {
  try {
    const result = await body(report);
    report.print('passed');
    return result;
  } catch (err) {
    report.print('failed');
    throw err;
  }
}
