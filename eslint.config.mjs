import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const NODE_BUILT_INS = {
  group: ['node:*', 'fs', 'path', 'http', 'https', 'crypto', 'os', 'child_process'],
  message: 'Workflow code must stay deterministic: no Node built-ins.',
};
const PURE_PROVIDER_HELPERS =
  "Only the pure provider helpers (the client package's order status, the avatar page walk and origin) are allowed in workflows.";
// The client package's shared contracts and order status, as workflows may import them.
const CLIENT_PACKAGE_FOR_WORKFLOWS = {
  regex: String.raw`^@avatar-pipeline/client(?!/contracts/|/provider/status$)`,
  message: `Workflows import only the shared contracts from the client package. ${PURE_PROVIDER_HELPERS}`,
};

export default tseslint.config(
  { ignores: ['node_modules/', '**/dist/', 'coverage/', '.tools/', '.data/', 'demo-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports' }],
    },
  },
  {
    // A promise nobody awaits loses its rejection, and in a workflow its command order too: every
    // promise is awaited, returned, handled or marked `void` on purpose. The rule needs types, so
    // TypeScript files are linted with their projects (tsconfig.json, console/tsconfig.json).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    // Workflow code (workflows/, the campaign's in workflows/campaign/) is bundled into Temporal's
    // deterministic sandbox: no Node built-ins, network or clock. Paths are matched at any depth.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NODE_BUILT_INS,
            {
              regex: String.raw`^(\.\./)+src/(?!contracts/|avatar-pages/(avatar-page-walk|avatar-page-origin)$)`,
              message: `Workflows import only the shared contracts from src/. ${PURE_PROVIDER_HELPERS}`,
            },
            CLIENT_PACKAGE_FOR_WORKFLOWS,
            {
              regex: String.raw`^(\.\./)+activities(/|$)`,
              message: 'Import activities as types only.',
              allowTypeImports: true,
            },
            {
              regex: String.raw`^\.\./index$`,
              message:
                'Campaign workflows import the shared workflow helpers of workflows/, not its bundle entry.',
            },
          ],
        },
      ],
    },
  },
  {
    // Layers point one way: surfaces (CLI, API) -> client -> contracts. Only the worker loads
    // workflow and activity code; everything else talks to workflows through the contracts (the
    // client package's, and src/contracts for what workflows share with activities only).
    files: ['src/**/*.ts'],
    ignores: ['src/worker/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/workflows', '**/workflows/*', '**/activities', '**/activities/*'],
              message:
                "Only src/worker loads workflow and activity code; import shared definitions from @avatar-pipeline/client/contracts (a campaign's from its contracts/campaign) or src/contracts.",
            },
            {
              group: ['**/dev', '**/dev/*'],
              message:
                'dev/ holds developer tooling (dev server, installers, demo); the product never loads it.',
            },
          ],
        },
      ],
    },
  },
  {
    // The client package is what apps embed and bundle: the Temporal client side and zod only.
    files: ['packages/client/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(avatar-pipeline|@temporalio/(worker|workflow|activity|testing))(/|$)`,
              message:
                'The client package loads the Temporal client side and zod only: no platform, worker or workflow code.',
            },
            {
              regex: String.raw`^@avatar-pipeline/client(/|$)`,
              message: 'Inside the client package, import its files by relative path.',
            },
          ],
        },
      ],
    },
  },
  {
    // src/worker is exempt from the rule above (it loads workflows and activities), not from this one.
    files: ['src/worker/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/dev', '**/dev/*'],
              message:
                'dev/ holds developer tooling (dev server, installers, demo); the product never loads it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'bin/*.js',
      'eslint.config.mjs',
      'jest.config.js',
      'jest.chaos.config.js',
      'jest.cluster.config.js',
      'test/setup/*.js',
    ],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'readonly',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
