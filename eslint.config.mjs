import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.tools/', '.data/', 'demo-output/'] },
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
    // Workflow code is bundled into Temporal's deterministic sandbox: no Node built-ins, network or clock.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'http', 'https', 'crypto', 'os', 'child_process'],
              message: 'Workflow code must stay deterministic: no Node built-ins.',
            },
            {
              group: ['../src/*', '!../src/contracts', '!../src/provider'],
              message:
                'Workflows import only the shared contracts (and pure provider status helpers) from src/.',
            },
            {
              group: [
                '../src/provider/*',
                '!../src/provider/status',
                '!../src/provider/avatar-page-walk',
                '!../src/provider/avatar-page-origin',
              ],
              message:
                'Only the pure helpers of the provider module (order status, avatar page walk and origin) are allowed in workflows.',
            },
            {
              group: ['../activities', '../activities/*'],
              message: 'Import activities as types only.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Layers point one way: surfaces (CLI, API) -> client -> contracts. Only the worker loads
    // workflow and activity code; everything else talks to workflows through src/contracts.
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
                'Only src/worker loads workflow and activity code; import shared definitions from src/contracts.',
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
