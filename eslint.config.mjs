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
              group: ['../src/provider/*', '!../src/provider/status'],
              message: 'Only the pure status helpers of the provider module are allowed in workflows.',
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
