// @ts-check
import tseslint from 'typescript-eslint';

/**
 * The architecture, checked rather than only described: `lib/` is pure and
 * imports nothing of ours outside it (nor Node), `components/` import only
 * `lib/`, `server/` never imports `app/` or `components/`. And the habits
 * an agent loop needs: no promise left floating or handed where a void
 * callback is expected, no unused value, type-only imports marked as such.
 */

const NODE_BUILTINS = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'util', 'events', 'stream', 'worker_threads', 'better-sqlite3', 'pg'];

/** `no-restricted-imports` patterns for the folders a layer must not reach, by relative path or by the `@/` alias. */
function layers(...folders) {
  return folders.flatMap((folder) => [
    { group: [`@/${folder}`, `@/${folder}/*`], message: `this layer must not import ${folder}/ (see docs/architecture.md)` },
    { group: [`**/${folder}`, `**/${folder}/*`, `!**/node_modules/**`], message: `this layer must not import ${folder}/ (see docs/architecture.md)` },
  ]);
}

export default tseslint.config(
  {
    ignores: ['node_modules/', '.next/', 'dist/', 'bench/.cache/', 'bench/results/', 'test-results/', 'playwright-report/', '.e2e-data/', 'next-env.d.ts', 'sample-workspace/', 'data/'],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs', '*.js', 'scripts/*.mjs', 'bench/*.mjs', 'server/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['lib/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...layers('server', 'app', 'components'), { group: NODE_BUILTINS, message: 'lib/ is isomorphic: no Node-only modules' }] }],
    },
  },
  {
    files: ['components/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...layers('server', 'app'), { group: NODE_BUILTINS, message: 'components run in the browser: no Node-only modules' }] }],
    },
  },
  {
    files: ['server/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: layers('app', 'components') }],
    },
  },
);
