import { readFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/**
 * The folders of every service's src/ and what each may import of its own service
 * (services/folders.json, described in docs/development.md, "Service folders"). The entry files at
 * the root (main, index, config, cli) and `testing/` wire everything; specs may import what they
 * test with. `types`: folders a file may import types from but no code (a gRPC handler names the
 * repository it is handed).
 */
const SERVICE_FOLDERS = JSON.parse(readFileSync(new URL('./services/folders.json', import.meta.url), 'utf8'));
const LAYERED = Object.keys(SERVICE_FOLDERS);

/** better-sqlite3 12 on Node 24 aborts the process when it garbage-collects a Database or a Statement (libs/store/src/sqlite/keep-alive.ts). */
const KEEP_ALIVE_SELECTORS = [
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
];

/** What only a repository (store/) holds of @crm/store: a folder marked `repositoriesOnly` imports none of them, not even as types. */
const STORE_HANDLES = ['DocumentStore', 'ScopedStore', 'Condition', 'WriteOp', 'Query', 'Change', 'defineCollection', 'openStore'];

/** A relative import that climbs out of the file's folder into `folder` (at any depth). */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

const serviceFolderRules = Object.entries(SERVICE_FOLDERS)
  .filter(([, { may }]) => !may.includes('*'))
  .map(([folder, { may, types = [], repositoriesOnly = false }]) => {
    const barred = LAYERED.filter((other) => other !== folder && !may.includes(other) && !types.includes(other));
    const patterns = [
      {
        regex: into(barred),
        message: `services' ${folder}/ may import only ${[folder, ...may].join(', ')}${types.length ? ` (and types from ${types.join(', ')})` : ''}: docs/development.md, "Service folders".`,
      },
    ];
    if (types.length)
      patterns.push({ regex: into(types), allowTypeImports: true, message: `${folder}/ may import only types from ${types.join(', ')}.` });
    const paths = repositoriesOnly
      ? [
          {
            name: '@crm/store',
            importNames: STORE_HANDLES,
            message: `services' ${folder}/ reaches storage through its service's repositories (store/), never the store itself or its conditions: docs/development.md, "Service folders".`,
          },
        ]
      : [];
    return {
      files: [`services/*/src/${folder}/**/*.ts`],
      ignores: ['**/*.spec.ts'],
      rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns, paths }] },
    };
  });

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
      'no-restricted-syntax': ['error', ...KEEP_ALIVE_SELECTORS],
    },
  },
  ...serviceFolderRules,
  {
    // A function that does one thing fits on a screen: split a longer one by what its parts do. Specs'
    // describe blocks are exempt (a suite is a list, not a procedure).
    files: ['services/*/src/**/*.ts', 'gateway/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/generated/**'],
    rules: { 'max-lines-per-function': ['error', { max: 60 }] },
  },
  {
    // Application code reads the time through the Clock its composition root hands it (@crm/vocabulary), so tests can move it.
    files: ['services/*/src/application/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      // This replaces the options of the rule above for these files, so its selectors come along.
      'no-restricted-syntax': [
        'error',
        ...KEEP_ALIVE_SELECTORS,
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read the time through the injected Clock.',
        },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Read the time through the injected Clock.' },
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
