import { describe, expect, it } from 'vitest';
import type { CallLabel, CallOptions } from '../../../lib/events';
import { CallLabel as CallLabels } from '../../../lib/events';
import { isOlder, knownVersion, readinessProblems } from '../../../lib/ollama-readiness';

const options = (thinking: CallLabel[] = []): Record<CallLabel, CallOptions> =>
  Object.fromEntries(
    CallLabels.options.map((role) => [role, { temperature: 0.1, numPredict: 512, numCtx: 8192, think: thinking.includes(role) }]),
  ) as Record<CallLabel, CallOptions>;

const qwen = { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'], contextLength: 40960 };
const llama = { name: 'llama3.2:latest', capabilities: ['completion', 'tools'], contextLength: 131072 };

describe('isOlder', () => {
  it('compares release numbers numerically, ignoring pre-release suffixes', () => {
    expect(isOlder('0.4.7', '0.5.0')).toBe(true);
    expect(isOlder('0.12.10', '0.9.0')).toBe(false);
    expect(isOlder('0.9.0-rc1', '0.9.0')).toBe(false);
    expect(isOlder('v0.5', '0.5.0')).toBe(false);
    expect(isOlder('0.8.9', '0.9.0')).toBe(true);
  });
});

describe('readinessProblems', () => {
  it('finds none for a current server and a model with what the roles ask', () => {
    expect(readinessProblems('0.12.10', qwen, options(['synthesizer']))).toEqual([]);
  });

  it('refuses a server too old for structured outputs, naming the minimum version', () => {
    const [problem] = readinessProblems('0.4.7', qwen, options());
    expect(problem?.code).toBe('ollama_too_old');
    expect(problem?.message).toContain('0.5.0');
  });

  it('refuses a server too old for think only when a role thinks', () => {
    expect(readinessProblems('0.6.0', qwen, options())).toEqual([]);
    const [problem] = readinessProblems('0.6.0', qwen, options(['planner']));
    expect(problem?.code).toBe('ollama_too_old');
    expect(problem?.message).toContain('0.9.0');
  });

  it('refuses each thinking role of a model that cannot think, by name', () => {
    const problems = readinessProblems('0.12.10', llama, options(['planner', 'synthesizer']));
    expect(problems.map((p) => [p.code, p.role])).toEqual([
      ['model_lacks_capability', 'planner'],
      ['model_lacks_capability', 'synthesizer'],
    ]);
  });

  it('refuses a model that cannot chat, and judges nothing on an unknown version or capability list', () => {
    expect(readinessProblems(null, { ...qwen, capabilities: ['embedding'] }, options())[0]?.code).toBe('model_lacks_capability');
    expect(readinessProblems(null, { ...llama, capabilities: null }, options(['planner']))).toEqual([]);
  });
});

describe('an Ollama built from source (version 0.0.0, as v0.24.0 built with `go build .` says)', () => {
  it('is no old server: its version is taken as unknown, and nothing is refused on it', () => {
    expect(knownVersion('0.0.0')).toBe(false);
    expect(knownVersion(null)).toBe(false);
    expect(knownVersion('0.12.10')).toBe(true);
    expect(readinessProblems('0.0.0', qwen, options(['planner']))).toEqual([]);
    // What the model can do is still judged.
    expect(readinessProblems('0.0.0', llama, options(['planner']))[0]).toMatchObject({ code: 'model_lacks_capability', role: 'planner' });
  });
});
