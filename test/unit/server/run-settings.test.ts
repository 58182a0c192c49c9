import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config';
import { runLimits } from '../../../server/runs/run-limits';
import { conclusionKey, toolCallKey } from '../../../server/engine/completed-work';

const configOf = (env: Record<string, string>) => loadConfig(env, process.cwd());

describe('sampling per role', () => {
  it('takes the role variable, then the global one, then the role default, then the built-in one', () => {
    const { callOptions } = configOf({ PLANSCOPE_NUM_PREDICT: '900', PLANSCOPE_EXECUTOR_NUM_PREDICT: '256', PLANSCOPE_PLANNER_THINK: 'true', PLANSCOPE_NUM_CTX: '4096' });
    expect(callOptions.planner).toEqual({ temperature: 0.3, numPredict: 900, numCtx: 4096, think: true });
    expect(callOptions.executor).toEqual({ temperature: 0.2, numPredict: 256, numCtx: 4096, think: false });
    expect(callOptions.synthesizer).toEqual({ temperature: 0.1, numPredict: 900, numCtx: 4096, think: false });
  });

  it('defaults every role as the seeds do where they say, and as before elsewhere', () => {
    const { callOptions } = configOf({});
    expect(callOptions).toEqual({
      planner: { temperature: 0.3, numPredict: 1600, numCtx: 8192, think: false },
      executor: { temperature: 0.2, numPredict: 512, numCtx: 8192, think: false },
      synthesizer: { temperature: 0.1, numPredict: 1600, numCtx: 8192, think: false },
      reviewer: { temperature: 0.1, numPredict: 1600, numCtx: 8192, think: false },
      actor: { temperature: 0.1, numPredict: 1600, numCtx: 8192, think: false },
    });
  });

  it.each([
    ['PLANSCOPE_PLANNER_TEMPERATURE', '3'],
    ['PLANSCOPE_REVIEWER_NUM_PREDICT', '0'],
    ['PLANSCOPE_ACTOR_THINK', 'yes'],
    ['PLANSCOPE_TEMPERATURE', '-1'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => configOf({ [name]: value })).toThrow(ConfigError);
    expect(() => configOf({ [name]: value })).toThrow(name);
  });
});

describe('a run\'s limits', () => {
  it('gives each profile its own step cap and a tool budget with room for a full plan every round', () => {
    const config = configOf({});
    expect(runLimits(config, { profile: 'file' })).toMatchObject({ maxSteps: 4, maxRounds: 2, toolBudget: 16 });
    expect(runLimits(config, { profile: 'general' })).toMatchObject({ maxSteps: 8, maxRounds: 2, toolBudget: 17 });
    expect(runLimits(config, { profile: 'general', maxRounds: 3 })).toMatchObject({ toolBudget: 25 });
  });

  it('takes the configured caps and budget as they are', () => {
    const config = configOf({ PLANSCOPE_MAX_STEPS: '3', PLANSCOPE_GENERAL_MAX_STEPS: '12', PLANSCOPE_TOOL_BUDGET: '10' });
    expect(runLimits(config, { profile: 'file' })).toMatchObject({ maxSteps: 3, toolBudget: 10 });
    expect(runLimits(config, { profile: 'general' })).toMatchObject({ maxSteps: 12, toolBudget: 10 });
  });
});

describe('what identifies completed work for reuse', () => {
  it('keys a tool call by the tool and its arguments, whatever their key order', () => {
    const key = toolCallKey('naive.read_files', { files: [{ path: 'a', mode: 'text' }], limit: 2 });
    expect(toolCallKey('naive.read_files', { limit: 2, files: [{ mode: 'text', path: 'a' }] })).toBe(key);
    expect(toolCallKey('naive.read_files', { limit: 2, files: [{ mode: 'text', path: 'b' }] })).not.toBe(key);
    expect(toolCallKey('other.read_files', { limit: 2, files: [{ mode: 'text', path: 'a' }] })).not.toBe(key);
    // Arrays keep their order: it may mean something to the tool.
    expect(toolCallKey('t.x', { list: [1, 2] })).not.toBe(toolCallKey('t.x', { list: [2, 1] }));
  });

  it('keys a reasoning step by its purpose and the results it depends on, in any order', () => {
    expect(conclusionKey('Compare', ['b', 'a'])).toBe(conclusionKey('Compare', ['a', 'b']));
    expect(conclusionKey('Compare', ['a', 'c'])).not.toBe(conclusionKey('Compare', ['a', 'b']));
    expect(conclusionKey('Contrast', ['a', 'b'])).not.toBe(conclusionKey('Compare', ['a', 'b']));
  });
});
