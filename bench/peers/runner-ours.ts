/** Entry: planscope's own loop, through the registry (SQLite store, event log, MCP bridge). See runner-core.ts. */
import { benchRuntime } from '../lib/runtime';
import { runBench } from './runner-core';

await runBench(async (_impl, workspace, fakeUrl) => {
  // The peer has no Reviewer; ours runs without it so both make the same 3 model calls.
  const bench = benchRuntime({ ollamaUrl: fakeUrl, workspace, env: { PLANSCOPE_REVIEW: 'false' } });
  return {
    async run(task) {
      const run = await bench.run(task);
      return { ok: run.view.status === 'completed' && run.view.rounds.length === 2, detail: `${run.view.status}, ${run.view.rounds.length} rounds` };
    },
    close: () => bench.close(),
  };
});
