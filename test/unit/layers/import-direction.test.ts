import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

interface LintRequest {
  /** Source text linted as if it were the file at `file`. */
  texts: { text: string; file: string }[];
  /** Directories linted as they are. */
  dirs: string[];
}

/**
 * The no-restricted-imports messages ESLint (its Node API, with the repository's eslint.config.mjs)
 * gives for each text, then for the directories. It runs in a child process because the config
 * is an ES module, which Jest's module sandbox cannot load; one process serves every check.
 */
function restrictedImports(request: LintRequest): { texts: string[][]; dirs: string[] } {
  const script = `
    const { ESLint } = require('eslint');
    const path = require('node:path');
    const request = JSON.parse(process.argv[1]);
    // The texts stand for files that do not exist, which no TypeScript project holds: they are parsed
    // without types, which no-restricted-imports does not need.
    const eslint = new ESLint({
      cwd: process.cwd(),
      ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    });
    const messages = (results) => results.flatMap((r) => r.messages
      .filter((m) => m.ruleId === 'no-restricted-imports')
      .map((m) => path.relative(process.cwd(), r.filePath) + ':' + m.line + ' ' + m.message));
    (async () => {
      const texts = [];
      for (const { text, file } of request.texts)
        texts.push(messages(await eslint.lintText(text, { filePath: path.resolve(file) })));
      const dirs = request.dirs.length > 0 ? messages(await eslint.lintFiles(request.dirs)) : [];
      process.stdout.write(JSON.stringify({ texts, dirs }));
    })();`;
  const out = execFileSync(process.execPath, ['-e', script, JSON.stringify(request)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { texts: string[][]; dirs: string[] };
}

const DEV_IMPORT =
  "import { startDevServer } from '../../dev/devserver';\nexport const s = startDevServer;\n";

const CLIENT_IN_WORKFLOW = [
  "import { MAX_SELFIES } from '@avatar-pipeline/client/contracts/limits';",
  "import { hasStarted } from '@avatar-pipeline/client/provider/status';",
  "import { startPipeline } from '@avatar-pipeline/client/client/pipelines';",
  "import { ProviderClient } from '@avatar-pipeline/client/provider/client';",
  'export const used = [MAX_SELFIES, hasStarted, startPipeline, ProviderClient];',
  '',
].join('\n');

const PLATFORM_IN_CLIENT = [
  "import { Worker } from '@temporalio/worker';",
  "import { loadConfig } from 'avatar-pipeline';",
  "import { Client } from '@temporalio/client';",
  'export const used = [Worker, loadConfig, Client];',
  '',
].join('\n');

describe('imports point one way: only src/worker loads workflows and activities', () => {
  let result: { texts: string[][]; dirs: string[] };
  beforeAll(() => {
    const forbidden = [
      "import { WORKFLOW_TYPES } from '../../workflows/pipeline';",
      "import type { ProviderActivities } from '../../activities/provider-activities';",
      'export const used: [typeof WORKFLOW_TYPES, ProviderActivities?] = [WORKFLOW_TYPES];',
      '',
    ].join('\n');
    result = restrictedImports({
      texts: [
        { text: forbidden, file: 'src/api/fake-import.ts' },
        { text: forbidden, file: 'src/worker/fake-import.ts' },
        {
          text: "import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';\nexport const t = WORKFLOW_TYPES;\n",
          file: 'src/api/fake-import.ts',
        },
        { text: DEV_IMPORT, file: 'src/cli/fake-import.ts' },
        { text: DEV_IMPORT, file: 'src/worker/fake-import.ts' },
        { text: CLIENT_IN_WORKFLOW, file: 'workflows/fake-import.ts' },
        { text: CLIENT_IN_WORKFLOW, file: 'workflows/campaign/fake-import.ts' },
        { text: PLATFORM_IN_CLIENT, file: 'packages/client/src/client/fake-import.ts' },
      ],
      dirs: ['src', 'workflows', 'packages/client/src'],
    });
  }, 120_000);

  test('a surface importing workflow or activity code fails the lint, type-only imports included', () => {
    const [fromApi] = result.texts;
    expect(fromApi).toHaveLength(2);
    expect(fromApi![0]).toContain("'../../workflows/pipeline' import is restricted");
    expect(fromApi![1]).toContain("'../../activities/provider-activities' import is restricted");
  });

  test("src/worker may load them; surfaces take shared definitions from the client package's contracts", () => {
    const [, fromWorker, fromContracts] = result.texts;
    expect(fromWorker).toEqual([]);
    expect(fromContracts).toEqual([]);
  });

  test('nothing in src/, src/worker included, loads the developer tooling in dev/', () => {
    const [, , , fromCli, fromWorker] = result.texts;
    expect(fromCli).toEqual([expect.stringContaining("'../../dev/devserver' import is restricted")]);
    expect(fromWorker).toEqual([expect.stringContaining("'../../dev/devserver' import is restricted")]);
  });

  test('workflows take only contracts and order status from the client package, not its Temporal or HTTP clients', () => {
    const [, , , , , fromWorkflows, fromCampaignWorkflows] = result.texts;
    for (const found of [fromWorkflows, fromCampaignWorkflows]) {
      expect(found).toHaveLength(2);
      expect(found![0]).toContain("'@avatar-pipeline/client/client/pipelines' import is restricted");
      expect(found![1]).toContain("'@avatar-pipeline/client/provider/client' import is restricted");
    }
  });

  test('the client package loads neither the platform nor the worker side of Temporal', () => {
    const fromClientPackage = result.texts[7];
    expect(fromClientPackage).toEqual([
      expect.stringContaining("'@temporalio/worker' import is restricted"),
      expect.stringContaining("'avatar-pipeline' import is restricted"),
    ]);
  });

  test('the tree has none', () => {
    expect(result.dirs).toEqual([]);
  });
});
