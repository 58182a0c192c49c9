import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The engine's and the runs' tests again with their harnesses on PostgreSQL
 * (a database of their own each, on the server of this machine). Left out:
 * tests that read the SQLite file itself (durability, eval ownership). Their
 * PostgreSQL counterparts are in test/integration/pg-*.test.ts.
 */
const ON_POSTGRES = [
  'test/integration/read-ahead.test.ts',
  'test/integration/resume.test.ts',
  'test/integration/engine.test.ts',
  'test/integration/engine-synthesis-retry.test.ts',
  'test/integration/strategies.test.ts',
  'test/integration/general.test.ts',
  'test/integration/bridge-pool.test.ts',
  'test/integration/run-stream.test.ts',
  'test/integration/task-length.test.ts',
  'test/integration/metrics.test.ts',
  'test/integration/telemetry.test.ts',
  'test/integration/eval.test.ts',
  'test/integration/eval-cases.test.ts',
  'test/integration/workspace-roots.test.ts',
  'test/integration/replay.test.ts',
  'test/integration/human-verdicts.test.ts',
  'test/integration/fork.test.ts',
  'test/integration/approval.test.ts',
  'test/integration/rejudged.test.ts',
  'test/integration/workers.test.ts',
  'test/integration/host-concurrency.test.ts',
  'test/integration/ollama-hosts.test.ts',
  'test/reliability/model-output.test.ts',
  'test/reliability/injection.test.ts',
  'test/reliability/secret-content.test.ts',
];

/**
 * Runs on real GGUF weights (SmolLM2-135M-Instruct) in the embedded engine,
 * from PLANSCOPE_TEST_MODELS_DIR (`scripts/fetch-test-models.sh` fills it;
 * CI runs it): they fail, never skip, when the files are not there.
 */
const REAL_MODEL_TESTS = 'test/real-model/**/*.test.ts';

export default defineConfig({
  // The `@/` imports of app/ and components/, as tsconfig.json maps them.
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    // A bound on a hung test, not a speed check: a test spawning the CLI three times took over 20 s on a loaded 2-core machine.
    testTimeout: 60000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, REAL_MODEL_TESTS] } },
      {
        extends: true,
        test: {
          name: 'real-model',
          include: [REAL_MODEL_TESTS],
          // One file at a time, each run's calls one at a time on one thread: two llama.cpp threads on a shared
          // 2-core machine fell to a few tokens a second. The bound is on a hung run, not a speed check.
          fileParallelism: false,
          testTimeout: 10 * 60 * 1000,
          hookTimeout: 5 * 60 * 1000,
          env: { PLANSCOPE_EMBEDDED_THREADS: '1' },
        },
      },
      { extends: true, test: { name: 'postgres', include: ON_POSTGRES, env: { PLANSCOPE_TEST_STORE: 'postgres' } } },
    ],
  },
});
