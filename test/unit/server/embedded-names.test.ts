import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedModelPath, EmbeddedModelMissing } from '../../../server/llm/embedded/catalog';
import { providerName } from '../../../server/telemetry/conventions';

describe("an embedded model's name", () => {
  const dir = '/srv/models';

  it('is a file of the models folder, with or without .gguf, or an absolute path to one', () => {
    expect(embeddedModelPath('SmolLM2-135M-Instruct.Q4_1', dir)).toBe(path.join(dir, 'SmolLM2-135M-Instruct.Q4_1.gguf'));
    expect(embeddedModelPath('tiny.gguf', dir)).toBe(path.join(dir, 'tiny.gguf'));
    expect(embeddedModelPath('/opt/weights/../weights/tiny.gguf', dir)).toBe('/opt/weights/tiny.gguf');
  });

  it('never reaches outside the folder by a relative name, and an absolute one must be a GGUF file', () => {
    for (const name of ['../secrets', 'sub/model', '..', '.', '', 'a\\b']) expect(() => embeddedModelPath(name, dir), name).toThrow(EmbeddedModelMissing);
    expect(() => embeddedModelPath('/etc/passwd', dir)).toThrow(/\.gguf/);
  });

  it("names its engine in traces: llama.cpp, beside Ollama's, an OpenAI-compatible server's and the baseline's", () => {
    expect(providerName({ baseline: false, model: 'embedded:SmolLM2-135M-Instruct.Q4_1' }, ['lmstudio'])).toBe('llama.cpp');
    expect(providerName({ baseline: false, model: 'qwen3:8b' }, ['lmstudio'])).toBe('ollama');
    expect(providerName({ baseline: false, model: 'lmstudio:qwen3-8b' }, ['lmstudio'])).toBe('openai');
    expect(providerName({ baseline: true, model: 'offline' }, [])).toBe('planscope.offline');
  });
});
