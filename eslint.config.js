// One flat config for the whole workspace. Besides the recommended rules it
// enforces STYLE.md's module boundaries: packages are crossed by name only,
// domain stays pure, and server and client never import each other.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const deepImports = {
  group: ['@plant-store/*/src', '@plant-store/*/src/**', '@plant-store/*/dist', '@plant-store/*/dist/**'],
  message: 'Cross packages by name only (the package front door).',
};

const restrict = (...patterns) => ({
  'no-restricted-imports': ['error', { patterns: [deepImports, ...patterns] }],
});

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
    },
  },
  {
    files: ['packages/domain/src/**/*.ts'],
    ignores: ['packages/domain/src/**/*.test.ts'],
    rules: restrict({
      regex: '^(?!io-ts($|/)|fp-ts($|/)|\\.{1,2}/).*',
      message: 'domain imports only io-ts, fp-ts and its own files (no I/O).',
    }),
  },
  {
    files: ['packages/client/**/*.ts'],
    rules: restrict({ group: ['@plant-store/server', '@plant-store/server/**'], message: 'The client never imports the server.' }),
  },
  {
    files: ['apps/server/**/*.ts'],
    rules: restrict({ group: ['@plant-store/client', '@plant-store/client/**'], message: 'The server never imports the client.' }),
  },
);
