/** Entry: the LangGraph.js peer (langgraph-plan-execute.ts); `--impl langgraph-memsaver` adds a MemorySaver. See runner-core.ts. */
import { APP_ROOT } from '../lib/paths';
import { createPeer } from './langgraph-plan-execute';
import { runBench } from './runner-core';

await runBench(async (impl, workspace, fakeUrl) => {
  const peer = await createPeer({ appRoot: APP_ROOT, workspace, ollamaUrl: fakeUrl, model: 'qwen3:8b', checkpointer: impl === 'langgraph-memsaver' });
  return {
    async run(task) {
      const r = await peer.run(task);
      return { ok: !!r.response && r.rounds === 2 && r.steps === 5, detail: `${r.rounds} rounds, ${r.steps} steps, response ${r.response ? 'yes' : 'no'}` };
    },
    close: () => peer.close(),
  };
});
