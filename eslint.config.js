// One flat config for the whole workspace. Besides the recommended rules it checks the module
// boundaries that docs/CONTRIBUTING.md describes: packages are crossed by name only, the domain
// stays pure, server and client never import each other, and inside the server only `http/`
// (and `app.ts`) knows Koa, only `adapters/` knows a database driver, nothing but the composition
// root reaches into `http/`, and the capability folders never reach into `adapters/`. Formatting
// is Prettier's (`pnpm lint` runs `prettier --check`).
//
// ESLint keeps one `no-restricted-imports` setting per file (a later block replaces an earlier
// one), so every block below lists all the patterns that hold for its files. In the server every
// rule holds by default (a new folder is held to all of them) and a later block lets a folder
// through where it must cross.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { importCycles } from './tools/eslint-import-cycles.mjs';

const deepImports = {
  group: ['@plant-store/*/src', '@plant-store/*/src/**', '@plant-store/*/dist', '@plant-store/*/dist/**'],
  message: 'Cross packages by name only (the package front door).',
};
const noClient = {
  group: ['@plant-store/client', '@plant-store/client/**'],
  message: 'The server never imports the client.',
};
const noServer = {
  group: ['@plant-store/server', '@plant-store/server/**'],
  message: 'The client never imports the server.',
};
const noKoa = {
  regex: '^(koa|koa-.*|@koa/.*)$',
  message: 'Only apps/server/src/http/ and app.ts know Koa; hand plain values to the rest.',
};
const noDrivers = {
  regex: '^(better-sqlite3|node:sqlite|postgres|pg|pg-.*|ioredis|redis)$',
  message: 'Only apps/server/src/adapters/ knows a database driver; go through a port in ports/.',
};
const noAdapters = {
  regex: '(^|/)adapters(/|$)',
  message: 'Capabilities see ports only; main.ts and the CLIs pick the adapters.',
};
const noHttp = {
  regex: '^\\.{1,2}/(.*/)?http(/|$)',
  message:
    'Only http/, app.ts and the composition root import http/; what http/ shares with the rest lives outside it (wire/ for the API text).',
};

const eitherTagTests = [
  ['left', 'right'],
  ['right', 'left'],
].map(([tag, literal]) => ({
  selector: `BinaryExpression[operator=/^[!=]==?$/][${tag}.property.name='_tag'][${literal}.value=/^(Left|Right)$/]`,
  message: 'Test an Either with E.isLeft / E.isRight (fp-ts/lib/Either.js), not its _tag.',
}));

const restrict = (...patterns) => ({
  'no-restricted-imports': ['error', { patterns: [deepImports, ...patterns] }],
});

const server = 'apps/server/src';
const unitTests = [`${server}/**/*.test.ts`];
// The composition root: it picks the adapters and starts the listener (docs/explanation/architecture.md).
const compositionRoot = ['main.ts', 'start-components.ts', 'cluster-primary.ts'].map((file) => `${server}/${file}`);
// The operator CLIs' entry points open a store through adapters/open-store.ts (or, for the data
// command, open-data-store.ts), never a driver of their own.
const cliEntryPoints = [`${server}/cli/**/*.ts`, `${server}/data/cli.ts`];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      ...restrict(),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      // An Either is asked with E.isLeft / E.isRight, which narrow alike, in one spelling. No
      // later block sets no-restricted-syntax, so this holds everywhere; one that does must
      // repeat these selectors (ESLint keeps one setting per rule per file).
      'no-restricted-syntax': ['error', ...eitherTagTests],
    },
  },
  // No import cycles inside a package, type-only imports included: a cycle means two files hold
  // one concept between them, or a shared type sits in the wrong file. import-x/no-cycle skips
  // type-only imports whatever its options, so tools/eslint-import-cycles.mjs follows those too.
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX, local: importCycles },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }], 'local/no-import-cycle': 'error' },
  },
  // Two type-only circles the rule found in test tooling, not yet untangled (issue 54).
  {
    files: [
      'apps/bench/src/plans.ts',
      'apps/bench/src/traced-plan.ts',
      'apps/torture/test/support/history-lines.ts',
      'apps/torture/test/support/linearizability.ts',
    ],
    rules: { 'local/no-import-cycle': 'off' },
  },
  {
    files: ['packages/domain/src/**/*.ts'],
    ignores: ['packages/domain/src/**/*.test.ts'],
    rules: restrict({
      regex: '^(?!io-ts($|/)|fp-ts($|/)|\\.{1,2}/).*',
      message: 'domain imports only io-ts, fp-ts and its own files (no I/O).',
    }),
  },
  { files: ['packages/client/**/*.ts'], rules: restrict(noServer) },
  {
    files: ['apps/server/**/*.ts'],
    rules: restrict(noClient),
  },
  // The server's folders: every rule, unless a block below lets a folder through. Unit tests
  // beside the code may open a real store to test against.
  {
    files: [`${server}/**/*.ts`],
    ignores: unitTests,
    rules: restrict(noClient, noKoa, noDrivers, noAdapters, noHttp),
  },
  { files: compositionRoot, ignores: unitTests, rules: restrict(noClient, noKoa, noDrivers) },
  {
    files: [`${server}/http/**/*.ts`, `${server}/app.ts`],
    ignores: unitTests,
    rules: restrict(noClient, noDrivers, noAdapters),
  },
  { files: [`${server}/adapters/**/*.ts`], ignores: unitTests, rules: restrict(noClient, noKoa, noHttp) },
  // A worker thread's entry file runs as .ts under vitest, through Node's own type stripping,
  // which finds no `./x.ts` for a `./x.js`: it imports its own folder's types only, with
  // `import type` (`import { type X }` would leave an `import {} from './x.js'` behind).
  // adapters/sqlite/worker-entry.ts says more.
  {
    files: [`${server}/**/*-worker-main.ts`],
    rules: {
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['./*', '../*'],
              allowTypeImports: true,
              message: 'A worker entry imports packages, and types only from its own folder (worker-entry.ts).',
            },
          ],
        },
      ],
    },
  },
  { files: cliEntryPoints, ignores: unitTests, rules: restrict(noClient, noKoa, noDrivers, noHttp) },
  // Configuration is decoded before anything opens: it knows no adapter and no listener.
  {
    files: [`${server}/config.ts`, `${server}/config/**/*.ts`],
    ignores: unitTests,
    rules: restrict(noClient, noKoa, noDrivers, noAdapters, {
      ...noHttp,
      message: 'Configuration does not import http/; http/ reads the decoded values instead.',
    }),
  },
);
