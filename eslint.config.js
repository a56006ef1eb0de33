// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const serverCode = {
  group: ['**/server/**', '**/server'],
  message: 'Front-end and engine code must not import server code.',
};

export default tseslint.config(
  {
    ignores: [
      'src/generated/**',
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      '.tmp/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // A route declares its parts' schemas (lib/route-schema.ts, typed(app)): the handler gets
    // them typed, so a cast of what the schema checked only hides a schema that says less.
    files: ['src/server/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['TSAsExpression', 'TSTypeAssertion'].map((cast) => ({
          selector: `${cast}[expression.type='MemberExpression'][expression.object.name=/^(request|req)$/][expression.property.name=/^(query|body|params)$/]`,
          message:
            "Declare the route's schema with the vocabulary of lib/route-schema.ts on typed(app) instead of casting request.query, body or params.",
        })),
      ],
    },
  },
  {
    // docs/architecture.md: the engine is pure and isomorphic; it imports nothing from server, admin or
    // portal.
    files: ['src/engine/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            serverCode,
            {
              group: ['**/admin/**', '**/portal/**', '**/web/**'],
              message: 'The engine imports no front-end code.',
            },
            {
              group: ['node:*', 'fs', 'path', 'crypto'],
              message: 'The engine runs in the browser too: no Node built-ins.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/admin/**', 'src/web/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [serverCode] }] },
  },
  {
    // docs/architecture.md: the back-office reaches the API only through its Refine providers (data, auth,
    // access control), which turn every failure into HttpError; the rest calls them.
    files: ['src/admin/features/**', 'src/admin/layout/**', 'src/admin/entity/**', 'src/admin/lib/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            serverCode,
            {
              group: ['**/web/http', '**/web/http.js'],
              message:
                'Call the API through the Refine providers (src/admin/providers), not the HTTP client.',
            },
          ],
        },
      ],
    },
  },
  {
    // The portal never loads the back-office or its heavy libraries.
    files: ['src/portal/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            serverCode,
            { group: ['**/admin/**', '**/admin'], message: 'The portal does not import back-office code.' },
            {
              group: ['@refinedev/*', '@rjsf/*', 'bpmn-js', 'bpmn-js/*', 'echarts', 'echarts/*'],
              message: 'Admin-only library.',
            },
          ],
        },
      ],
    },
  },
);
