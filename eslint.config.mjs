import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      '.jest/**',
      '.cluster/**',
      'data/**',
      'libs/grpc/src/generated/**',
      'clients/typescript/src/generated/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // better-sqlite3 12 on Node 24 aborts the process when it garbage-collects a Database or a
    // Statement (libs/store/src/sqlite/keep-alive.ts): every one is made inside keepAlive().
    files: ['**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Database']:not(CallExpression[callee.name='keepAlive'] > NewExpression)",
          message: 'Wrap a better-sqlite3 Database in keepAlive(): Node 24 aborts when one is garbage-collected.',
        },
        {
          selector: "CallExpression[callee.property.name='prepare']:not(CallExpression[callee.name='keepAlive'] > CallExpression)",
          message: 'Wrap a better-sqlite3 Statement in keepAlive(): Node 24 aborts when one is garbage-collected.',
        },
        {
          selector: "CallExpression[callee.property.name='pragma']",
          message: 'Set PRAGMAs with exec(): db.pragma() prepares a statement that is left to the garbage collector.',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
