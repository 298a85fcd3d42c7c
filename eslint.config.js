import graphqlPlugin from '@graphql-eslint/eslint-plugin';
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
    // The served v3 schema as checked in (npm run schema:print); README, "GraphQL", states the policy.
    files: ['schema.graphql'],
    languageOptions: { parser: graphqlPlugin.parser, parserOptions: { graphQLConfig: { schema: 'schema.graphql' } } },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: {
      ...graphqlPlugin.configs['flat/schema-recommended'].rules,
      '@graphql-eslint/naming-convention': [
        'error',
        {
          ...graphqlPlugin.configs['flat/schema-recommended'].rules['@graphql-eslint/naming-convention'][1],
          // ApiScope's values are the scope names clients are issued and send (orders_read), as written everywhere else.
          EnumValueDefinition: { style: 'UPPER_CASE', ignorePattern: '^[a-z]+(_[a-z]+)*_(read|write|privacy)$' },
        },
      ],
      // Value objects (Money, addresses, results) have no identity of their own to give an id.
      '@graphql-eslint/strict-id-in-types': 'off',
      // Product.productFamily and Fulfillment.fulfillmentId say what they are; renaming them would break clients.
      '@graphql-eslint/no-typename-prefix': 'off',
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
          DirectiveDefinition: true,
        },
      ],
    },
  },
  {
    files: ['test/**/*.test.ts'],
    rules: {
      // vitest.config.ts runs files one after another in a worker that keeps its modules
      // (isolate: false): a mock, a stubbed global or env var or a faked clock would carry over
      // into whichever file runs next there. Hand values in (options, contexts, env of a child) instead.
      'no-restricted-properties': [
        'error',
        ...['mock', 'doMock', 'unmock', 'stubEnv', 'stubGlobal', 'useFakeTimers', 'setSystemTime', 'resetModules'].map((property) => ({
          object: 'vi',
          property,
          message: 'test files share a worker and its modules (vitest.config.ts, isolate: false)',
        })),
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "AssignmentExpression[left.object.object.name='process'][left.object.property.name='env'], UnaryExpression[operator='delete'][argument.object.object.name='process']",
          message: 'test files share a worker and its process.env (vitest.config.ts, isolate: false); give a child process its own env',
        },
      ],
    },
  },
  {
    files: ['src/rest/**', 'src/compat/**', 'src/web/**', 'src/v3/**', 'src/exports/**'],
    rules: {
      // Doors run GraphQL operations; they never reach the domain or the database's client directly (DESIGN.md).
      // The one exception is the search syntax, pure reading of the `query:` text: v3's cost rule counts its terms.
      'no-restricted-imports': ['error', { patterns: ['**/domain/*.ts', '**/domain/demo/*', '**/domain/search/*', '!**/domain/search/syntax.ts', '**/generated/*'] }],
    },
  },
  {
    files: ['src/schema/**'],
    rules: {
      // The schema is below every door and the pipeline.
      'no-restricted-imports': ['error', { patterns: ['**/http/*', '**/http/steps/*', '**/v3/*', '**/rest/*', '**/compat/*', '**/web/*', '**/exports/*', '**/process/*'] }],
    },
  },
  {
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/schema/*', '**/http/*', '**/http/steps/*', '**/v3/*', '**/rest/*', '**/compat/*', '**/web/*', '**/exports/*', '**/process/*'] }],
    },
  },
  {
    files: ['src/auth/**', 'src/db/**', 'src/observability/**', 'src/formats/**', 'src/live/**'],
    rules: {
      // The ground floor: what the domain and everything above build on.
      'no-restricted-imports': ['error', { patterns: ['**/domain/*', '**/schema/*', '**/http/*', '**/http/steps/*', '**/v3/*', '**/rest/*', '**/compat/*', '**/web/*', '**/exports/*', '**/process/*'] }],
    },
  },
);
