import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * The rules ESLint (the repository's eslint.config.mjs) reports for `text` linted as the file at
 * `file`, with types. In a child process: the config is an ES module, which Jest cannot load.
 */
function rulesReported(text: string, file: string): string[] {
  const script = `
    const { ESLint } = require('eslint');
    const [text, file] = process.argv.slice(1);
    new ESLint({ cwd: process.cwd() })
      .lintText(text, { filePath: file })
      .then((results) => process.stdout.write(JSON.stringify(results.flatMap((r) => r.messages.map((m) => m.ruleId ?? m.message)))));`;
  const out = execFileSync(process.execPath, ['-e', script, text, path.join(ROOT, file)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

describe('a promise nobody awaits fails the lint', () => {
  const floating = `export async function later(): Promise<void> {}\nexport function now(): void {\n  later();\n}\n`;

  test('in a workflow, where it would also drop a command from the order', () => {
    expect(rulesReported(floating, 'workflows/polling.ts')).toContain(
      '@typescript-eslint/no-floating-promises',
    );
  });

  test('in the console, its own TypeScript project', () => {
    expect(rulesReported(floating, 'console/main.tsx')).toContain('@typescript-eslint/no-floating-promises');
  });

  test('not when it is awaited or marked void on purpose', () => {
    const handled = floating.replace('later();', 'void later();');
    expect(rulesReported(handled, 'workflows/polling.ts')).toEqual([]);
  });
});
