import { describe, expect, it } from 'vitest';
import { modelRefName, parseModelRef } from '../../../lib/model-ref';

describe('parseModelRef', () => {
  const servers = ['openai', 'lmstudio'];

  it.each([
    ['offline', { provider: 'offline', model: 'offline' }],
    ['qwen3:8b', { provider: 'ollama', model: 'qwen3:8b' }],
    ['qwen3', { provider: 'ollama', model: 'qwen3' }],
    ['hf.co/org/model:Q4_K_M', { provider: 'ollama', model: 'hf.co/org/model:Q4_K_M' }],
    ['ollama:qwen3:8b', { provider: 'ollama', model: 'qwen3:8b' }],
    ['ollama:embedded', { provider: 'ollama', model: 'embedded' }],
    ['embedded:SmolLM2-135M-Instruct.Q4_1', { provider: 'embedded', model: 'SmolLM2-135M-Instruct.Q4_1' }],
    ['embedded:/models/x.gguf', { provider: 'embedded', model: '/models/x.gguf' }],
    ['openai:gpt-4o-mini', { provider: 'openai', server: 'openai', model: 'gpt-4o-mini' }],
    ['lmstudio:Qwen/Qwen3-8B:q4', { provider: 'openai', server: 'lmstudio', model: 'Qwen/Qwen3-8B:q4' }],
    // Not a configured server: an Ollama model with a tag, as before.
    ['vllm:latest', { provider: 'ollama', model: 'vllm:latest' }],
    ['embedded:', { provider: 'ollama', model: 'embedded:' }],
    [':8b', { provider: 'ollama', model: ':8b' }],
  ])('%s', (name, ref) => {
    expect(parseModelRef(name, servers)).toEqual(ref);
  });

  it('names a ref back as it was written, an Ollama model by its plain name', () => {
    for (const name of ['offline', 'qwen3:8b', 'embedded:a', 'lmstudio:Qwen/Qwen3-8B']) {
      expect(modelRefName(parseModelRef(name, servers))).toBe(name);
    }
    expect(modelRefName(parseModelRef('ollama:qwen3:8b', servers))).toBe('qwen3:8b');
  });
});
