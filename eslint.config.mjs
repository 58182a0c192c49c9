// @ts-check
import fs from 'node:fs';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * The architecture, checked rather than only described: `lib/` is pure and
 * imports nothing of ours outside it (nor Node), `components/` import only
 * `lib/`, `server/` never imports `app/` or `components/`; inside `server/`,
 * each part imports only the parts on the floors below it (`SERVER_FLOORS`),
 * no runtime import cycle (type-only imports may close a loop: they are
 * gone once compiled), the engine reaches neither the runs, the store, HTTP
 * nor the file system, and the store knows nothing of runs or the engine;
 * `app/` reaches the store only through the runtime. And the habits
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

/**
 * Patterns for the folders of `server/` a part of it must not reach, by relative path.
 * @param {string} part
 * @param {...string} folders
 */
function inServer(part, ...folders) {
  return folders.map((folder) => ({
    group: [`../${folder}`, `../${folder}/*`, `../../${folder}`, `../../${folder}/*`],
    message: `server/${part}/ must not import server/${folder}/ (see docs/architecture.md)`,
  }));
}

const SERVER_LAYERS = layers('app', 'components');

/**
 * The parts of `server/`, from the ground up: a part imports only parts on
 * a lower floor, so no import runs back up and no two folders need each
 * other (type-only imports included: a type is a dependency of the design
 * even when it is gone at run time). Parts on one floor do not import each
 * other. docs/architecture.md draws the same floors (a test holds it to these).
 */
export const SERVER_FLOORS = [
  ['errors.ts', 'process.ts', 'app-root.ts', 'bundles.mjs'],
  ['config'],
  ['store'],
  ['telemetry', 'queries.ts'],
  ['mcp'],
  ['llm'],
  ['engine', 'queue'],
  ['runs', 'workers'],
  ['replay', 'eval', 'run-bundles', 'doctor'],
  ['runtime.ts'],
  ['http', 'cli'],
];
// A part left off the floors would be checked by nothing: the lint refuses to start instead.
const unplaced = fs.readdirSync(new URL('./server', import.meta.url)).filter((entry) => !entry.endsWith('.md') && !SERVER_FLOORS.flat().includes(entry));
if (unplaced.length > 0) throw new Error(`eslint.config.mjs: put ${unplaced.map((e) => `server/${e}`).join(', ')} on a floor of SERVER_FLOORS`);
const serverPart = (/** @type {string} */ part) => `./server/${part}`;
/** `import-x/no-restricted-paths` zones: each part may not import a part on its own floor or above. */
const FLOOR_ZONES = SERVER_FLOORS.flatMap((floor, level) =>
  floor.map((part) => ({
    target: serverPart(part),
    from: SERVER_FLOORS.slice(level).flat().filter((other) => other !== part).map(serverPart),
    message: `server/${part} is on floor ${level + 1} of server/: it imports only the parts below it (see docs/architecture.md)`,
  })),
);
const NO_FS = ['fs', 'fs/promises', 'node:fs', 'node:fs/promises'].map((name) => ({
  name,
  message: 'the engine reads files only through the workspace bridge (MCP)',
}));

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
    plugins: { 'import-x': importX },
    settings: {
      // Our imports name `.ts` files without the extension; the cycle rule must parse and follow them.
      'import-x/extensions': ['.ts', '.tsx', '.mjs', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.mjs', '.js'] })],
    },
    rules: {
      'no-restricted-imports': ['error', { patterns: SERVER_LAYERS }],
      // Type-only imports are not followed: a loop closed only by types is gone at run time.
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: FLOOR_ZONES }],
    },
  },
  {
    files: ['server/engine/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: NO_FS, patterns: [...SERVER_LAYERS, ...inServer('engine', 'runs', 'store', 'http')] }],
    },
  },
  {
    files: ['server/store/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...SERVER_LAYERS, ...inServer('store', 'runs', 'engine')] }],
    },
  },
  {
    files: ['app/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/server/store', '**/server/store/*'], message: 'app/ reaches the store through the runtime (see docs/architecture.md)' }] },
      ],
    },
  },
);
