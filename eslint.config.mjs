// @ts-check
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * The architecture, checked rather than only described: `lib/` is pure and
 * imports nothing of ours outside it (nor Node), `components/` import only
 * `lib/`, `server/` never imports `app/` or `components/`. And the habits
 * an agent loop needs: no promise left floating or handed where a void
 * callback is expected, no unused value, type-only imports marked as such.
 */

/** Modules only Node has, by exact name (a pattern such as `events` would also catch `./events`). */
const NODE_ONLY = ['fs', 'fs/promises', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'util', 'events', 'stream', 'worker_threads', 'better-sqlite3', 'pg'].map((name) => ({
  name,
  message: 'this layer also runs in the browser: no Node-only modules',
}));
const NODE_SCHEME = { group: ['node:*'], message: 'this layer also runs in the browser: no Node-only modules' };

/**
 * `no-restricted-imports` patterns for the folders a layer must not reach.
 * @param {...string} folders
 */
function layers(...folders) {
  // `**/server/*` also matches the `@/server/...` alias.
  return folders.map((folder) => ({
    group: [`**/${folder}`, `**/${folder}/*`, '!**/node_modules/**'],
    message: `this layer must not import ${folder}/ (see docs/architecture.md)`,
  }));
}

export default tseslint.config(
  {
    ignores: ['node_modules/', '.next/', 'dist/', 'bench/.cache/', 'bench/results/', 'test-results/', 'playwright-report/', '.e2e-data/', 'next-env.d.ts', 'sample-workspace/', 'data/'],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.js'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: { allowDefaultProject: ['next.config.js'] }, tsconfigRootDir: import.meta.dirname },
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
    files: ['components/**', 'app/**'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['lib/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: NODE_ONLY, patterns: [...layers('server', 'app', 'components'), NODE_SCHEME] }],
    },
  },
  {
    files: ['components/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: NODE_ONLY, patterns: [...layers('server', 'app'), NODE_SCHEME] }],
    },
  },
  {
    files: ['server/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: layers('app', 'components') }],
    },
  },
);
