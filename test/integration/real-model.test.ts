import { afterEach, describe, expect, it } from 'vitest';
import { endpointAnswer, ENDPOINT_TASK, plan, startHarness, type Harness } from '../support/harness';

/** What real models and servers do that a well-behaved fake would not, reproduced on the wire, and what a run makes of it. */

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a run on a model that writes a <think> block into its reply with thinking off', () => {
  it('parses the rest, keeps the block as the call\'s thinking, and counts it in the call log', async () => {
    h = await startHarness({
      planner: [{ content: `<think>The config file holds the host.</think>\n${plan('src/config.ts')}` }],
      synthesizer: [{ content: endpointAnswer() }],
    });
    const { id, result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const planner = result.llmCalls.find((c) => c.label === 'planner')!;
    expect(planner.thinkBlockMoved).toBe(true);
    expect(planner.thinkingArtifact).not.toBeNull();
    const thinking = (await h.runtime.store.listArtifacts(id)).find((a) => a.name === planner.thinkingArtifact);
    expect(thinking?.content).toBe('The config file holds the host.');
    expect(result.llmCalls.find((c) => c.label === 'synthesizer')!.thinkBlockMoved).toBeUndefined();
  });
});

describe('a run on a server out of memory for the model', () => {
  it("fails with model_error, Ollama's message verbatim, and what to do", async () => {
    const oom = 'model requires more system memory (9.2 GiB) than is available (4.1 GiB)';
    h = await startHarness({ planner: [{ status: 500, error: oom }] });
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('model_error');
    expect(result.error?.message).toContain(oom);
    expect(result.error?.message).toContain('ollama stop');
  });
});
