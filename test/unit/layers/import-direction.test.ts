import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * Runs ESLint (its Node API, with the repository's eslint.config.mjs) in a child process: the
 * config is an ES module, which Jest's module sandbox cannot load.
 */
function lint(request: { text?: string; file?: string; files?: string[] }): string[] {
  const script = `
    const { ESLint } = require('eslint');
    const path = require('node:path');
    const request = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: process.cwd() });
    const run = request.text !== undefined
      ? eslint.lintText(request.text, { filePath: path.resolve(request.file) })
      : eslint.lintFiles(request.files);
    run.then((results) => {
      const found = results.flatMap((r) => r.messages
        .filter((m) => m.ruleId === 'no-restricted-imports')
        .map((m) => path.relative(process.cwd(), r.filePath) + ':' + m.line + ' ' + m.message));
      process.stdout.write(JSON.stringify(found));
    });`;
  const out = execFileSync(process.execPath, ['-e', script, JSON.stringify(request)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

describe('imports point one way: only src/worker loads workflows and activities', () => {
  test('src/client importing workflow or activity code fails the lint, type-only imports included', () => {
    const text = [
      "import { WORKFLOW_TYPES } from '../../workflows/pipeline';",
      "import type { ProviderActivities } from '../../activities/provider-activities';",
      'export const used: [typeof WORKFLOW_TYPES, ProviderActivities?] = [WORKFLOW_TYPES];',
      '',
    ].join('\n');
    const errors = lint({ text, file: 'src/client/fake-import.ts' });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain("'../../workflows/pipeline' import is restricted");
    expect(errors[1]).toContain("'../../activities/provider-activities' import is restricted");
  });

  test('src/worker may load them; src/client takes shared definitions from src/contracts', () => {
    const worker =
      "import type { ProviderActivities } from '../../activities/provider-activities';\nexport type A = ProviderActivities;\n";
    expect(lint({ text: worker, file: 'src/worker/fake-import.ts' })).toEqual([]);
    const contracts =
      "import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';\nexport const t = WORKFLOW_TYPES;\n";
    expect(lint({ text: contracts, file: 'src/client/fake-import.ts' })).toEqual([]);
  });

  test('the tree has none', () => {
    expect(lint({ files: ['src'] })).toEqual([]);
  });
});
