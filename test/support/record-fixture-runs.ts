/**
 * Records the event logs under test/fixtures/runs/: real runs (SQLite, the
 * MCP bridge, the ollama client against the fake Ollama server), their logs
 * written as stored, with the temporary workspace path replaced by
 * `/workspace`. The Result's round-trip test folds every one of them, so a
 * log recorded by an older planscope keeps proving that old runs parse and
 * fold. Re-record only into a new folder: the point of a fixture is the
 * version that wrote it.
 *
 *   npx tsx test/support/record-fixture-runs.ts <out-dir>
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FakeScript } from './fake-ollama';
import { answer, endpointAnswer, ENDPOINT_TASK, generalPlan, plan, readStep, reasonStep, startHarness, type RunOptions } from './harness';

interface Scenario {
  name: string;
  script: FakeScript;
  options?: RunOptions;
  env?: Record<string, string>;
  /** Changes the workspace copy before the run. */
  prepare?: (workspace: string) => void;
}

const reply = (content: string) => ({ content });
const endpoint = [reply(endpointAnswer())];

const SCENARIOS: Scenario[] = [
  {
    name: 'file-not-found-then-cached',
    script: { planner: [reply(plan('src/config.ts', 'src/missing.ts')), reply(plan('src/config.ts', 'src/llm.ts'))], synthesizer: endpoint },
    env: { PLANSCOPE_READ_AHEAD: 'false' },
  },
  {
    name: 'symlink-escape-replanned',
    script: { planner: [reply(plan('docs/system-passwd')), reply(plan('src/config.ts'))], synthesizer: endpoint },
  },
  {
    name: 'rejected-then-accepted',
    script: { planner: [reply(plan('src/config.ts', '.env.local')), reply(plan('src/config.ts'))], synthesizer: endpoint },
  },
  {
    name: 'general-reasoning-failed-exhausted',
    script: {
      planner: [generalPlan(readStep(1, 'src/config.ts'), reasonStep(2, [1])), generalPlan(readStep(1, 'src/missing.ts'), reasonStep(2, [1]))],
      executor: [reply(JSON.stringify({ status: 'failed', result: '', reason: 'The default is not in this file.' }))],
    },
    options: { profile: 'general' },
  },
  {
    name: 'react-completed',
    script: {
      actor: [
        reply(JSON.stringify({ thought: 'Start with config', action: 'read_file', path: 'src/config.ts' })),
        reply(JSON.stringify({ thought: 'Try a missing file', action: 'read_file', path: 'src/nope.ts' })),
        reply(JSON.stringify({ thought: 'Done', action: 'finish', path: '' })),
      ],
      synthesizer: endpoint,
    },
    options: { strategy: 'react' },
  },
  {
    name: 'planner-timeout',
    script: { planner: [{ hang: true }] },
    env: { PLANSCOPE_CALL_TIMEOUT_MS: '300', PLANSCOPE_LOAD_TIMEOUT_MS: '300' },
  },
  {
    name: 'offline-baseline',
    script: {},
    options: { model: 'offline' },
  },
  {
    name: 'unsupported-answer',
    script: { planner: [reply(plan('src/config.ts'))], synthesizer: [reply(answer([{ text: 'It is configured somewhere.' }]))] },
  },
];

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'test/fixtures/runs');
  fs.mkdirSync(out, { recursive: true });
  for (const s of SCENARIOS) {
    const h = await startHarness(s.script, s.env);
    try {
      s.prepare?.(h.workspace);
      const { events } = await h.run(ENDPOINT_TASK, s.options);
      const text = JSON.stringify(events, null, 1).split(h.workspace).join('/workspace');
      fs.writeFileSync(path.join(out, `${s.name}.json`), `${text}\n`);
      process.stdout.write(`${s.name}: ${events.length} events, ${events.at(-1)?.type}\n`);
    } finally {
      await h.close();
    }
  }
}

await main();
