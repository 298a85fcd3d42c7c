import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'src/generated/', 'data/', 'coverage/', 'tools/prisma-engine/**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['src/rest/**', 'src/compat/**'],
    rules: {
      // Adapters run GraphQL operations; they never reach the domain or the database directly (DESIGN.md).
      'no-restricted-imports': ['error', { patterns: ['**/domain/*', '**/db/*', '**/generated/*'] }],
    },
  },
  {
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/schema/*', '**/rest/*', '**/compat/*'] }],
    },
  },
);
