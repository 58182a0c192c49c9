import { describe, expect, it } from 'vitest';
import type { CallOptions } from '../../../lib/events';
import { estimatePromptTokens, sizedToPrompt, withFewerFiles } from '../../../server/engine/context-budget';
import { renderPrompt } from '../../../server/llm/prompts';
import type { FilePlanInput } from '../../../server/llm/stage-input';

const planInput = (files: number): FilePlanInput => ({
  kind: 'plan',
  task: 'How is the model endpoint configured?',
  schema: { type: 'object', properties: { steps: { type: 'array' } } },
  files: Array.from({ length: files }, (_, i) => ({ path: `src/module-${i}/a-rather-long-file-name-${i}.ts`, bytes: 1000 + i })),
  maxSteps: 4,
  lessons: [],
  kept: { observed: [], conclusions: [] },
});

const OPTIONS: CallOptions = { temperature: 0.3, numPredict: 1600, numCtx: 32_768, think: false };
const needed = (input: FilePlanInput) => estimatePromptTokens(renderPrompt(input)) + OPTIONS.numPredict;

describe('num_ctx sized to the prompt (PLANSCOPE_NUM_CTX_AUTO)', () => {
  it('asks for the smallest step of 2048, 4096, 8192, ... that the prompt and num_predict fit', () => {
    const small = planInput(3);
    expect(needed(small)).toBeLessThanOrEqual(4096);
    expect(sizedToPrompt(small, OPTIONS, 0).numCtx).toBe(needed(small) <= 2048 ? 2048 : 4096);
    const large = planInput(400);
    const size = sizedToPrompt(large, OPTIONS, 0).numCtx;
    expect(size).toBeGreaterThanOrEqual(needed(large));
    expect(size / 2).toBeLessThan(needed(large));
  });

  it('never asks for less than the run did before, nor for more than the cap (num_ctx within the model)', () => {
    expect(sizedToPrompt(planInput(3), OPTIONS, 16_384).numCtx).toBe(16_384);
    expect(sizedToPrompt(planInput(400), { ...OPTIONS, numCtx: 6000 }, 0).numCtx).toBe(6000);
    expect(sizedToPrompt(planInput(3), { ...OPTIONS, numCtx: 3000 }, 8192).numCtx).toBe(3000);
  });
});

describe('a planner asked again with a shorter prompt', () => {
  it('keeps the first half of the workspace listing, and cannot halve a listing of one file or another stage', () => {
    expect((withFewerFiles(planInput(5)) as FilePlanInput).files.map((f) => f.path)).toEqual(planInput(5).files.slice(0, 3).map((f) => f.path));
    expect(withFewerFiles(planInput(1))).toBeNull();
    expect(withFewerFiles({ kind: 'review', schema: {}, claims: [] })).toBeNull();
  });
});
