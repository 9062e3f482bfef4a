/**
 * Prints the slowest test files at the end of a run, so a CI log shows where its minutes went
 * even when only its tail is kept. SLOWEST_FILES sets how many (default 25; 0 prints none).
 */
class SlowestFilesReporter {
  constructor(_globalConfig, options = {}) {
    this.count = Number(process.env.SLOWEST_FILES ?? options.count ?? 25);
  }

  onRunComplete(_contexts, results) {
    if (!(this.count > 0)) return;
    const files = results.testResults
      .map((r) => ({ seconds: (r.perfStats.end - r.perfStats.start) / 1000, file: r.testFilePath }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, this.count);
    const total = results.testResults.reduce((s, r) => s + (r.perfStats.end - r.perfStats.start) / 1000, 0);
    const lines = files.map(
      (f) => `${f.seconds.toFixed(1).padStart(8)} s  ${f.file.replace(`${process.cwd()}/`, '')}`,
    );
    process.stderr.write(
      `\nSlowest ${files.length} test files (all files: ${total.toFixed(0)} s):\n${lines.join('\n')}\n`,
    );
  }
}

module.exports = SlowestFilesReporter;
