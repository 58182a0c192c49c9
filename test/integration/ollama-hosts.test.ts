import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../lib/events';
import { loadConfig } from '../../server/config';
import { hostsServing, leastBusy } from '../../server/llm/host-choice';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { APP_ROOT, endpointAnswer, ENDPOINT_TASK, plan, startHarness, type Harness } from '../support/harness';

/**
 * Several Ollama hosts behind one process (PLANSCOPE_OLLAMA_HOSTS): each is
 * registered with its own models, and a run starting here goes to the least
 * busy host that has its model, where all its calls stay. Proved with two
 * fake Ollama servers, each counting the chats it was sent.
 */

let h: Harness | undefined;
let second: FakeOllama | undefined;

afterEach(async () => {
  await h?.close();
  await second?.close();
  h = undefined;
  second = undefined;
});

const SLOW = { planner: [{ content: plan('src/config.ts'), delayMs: 300 }], synthesizer: [{ content: endpointAnswer(), delayMs: 100 }] };
const chats = (fake: FakeOllama) => fake.requests.filter((r) => r.path === '/api/chat');
const startedHost = (events: readonly RunEvent[]) => events.find((e) => e.type === 'run_started')?.host;

describe('PLANSCOPE_OLLAMA_HOSTS', () => {
  it('lists the hosts normalized, the first the default, each once; unset, OLLAMA_HOST alone; a bad one refused', () => {
    const config = loadConfig({ PLANSCOPE_OLLAMA_HOSTS: ' gpu1:11434, http://gpu2 ,gpu1, ' }, APP_ROOT);
    expect(config.ollamaHosts).toEqual(['http://gpu1:11434', 'http://gpu2:11434']);
    expect(config.ollamaHost).toBe('http://gpu1:11434');
    expect(loadConfig({ OLLAMA_HOST: '0.0.0.0' }, APP_ROOT).ollamaHosts).toEqual(['http://127.0.0.1:11434']);
    expect(() => loadConfig({ PLANSCOPE_OLLAMA_HOSTS: 'http://gpu1, ftp://gpu2' }, APP_ROOT)).toThrow(/PLANSCOPE_OLLAMA_HOSTS: ftp:\/\/gpu2 is not an http or https URL/);
    expect(() => loadConfig({ PLANSCOPE_OLLAMA_HOSTS: ' , ' }, APP_ROOT)).toThrow(/PLANSCOPE_OLLAMA_HOSTS: lists no host/);
  });

  it('chooses among the hosts that have the model, the least busy, the first configured among equals', () => {
    const hosts = [
      { host: 'a', models: ['qwen3:8b'] },
      { host: 'b', models: ['qwen3:8b', 'mistral:latest'] },
    ];
    expect(hostsServing('mistral', hosts, 'qwen3:8b')).toEqual(['b']);
    expect(hostsServing('qwen3:8b', hosts, 'qwen3:8b')).toEqual(['a', 'b']);
    // Nobody lists it: the default host, which fails the run visibly, as with one host.
    expect(hostsServing('phi4', hosts, 'qwen3:8b')).toEqual(['a']);
    // Not read (no registration yet): the default host serves everything.
    expect(hostsServing('mistral', [{ host: 'a', models: null }, { host: 'b', models: null }], 'qwen3:8b')).toEqual(['a']);
    expect(leastBusy(['a', 'b'], () => 0)).toBe('a');
    expect(leastBusy(['a', 'b'], (host) => (host === 'a' ? 2 : 1))).toBe('b');
    expect(leastBusy([], () => 0)).toBeNull();
  });

  it('registers every host with its models, spreads runs started at once over the hosts, and records the host each ran on', async () => {
    second = await startFakeOllama({ ...SLOW, models: ['qwen3:8b', 'mistral:7b'] });
    const secondUrl = second.url;
    h = await startHarness(SLOW, (url) => ({ PLANSCOPE_OLLAMA_HOSTS: `${url},${secondUrl}`, PLANSCOPE_HOST_CONCURRENCY: '1', PLANSCOPE_REVIEW: 'false' }));
    const self = await h.runtime.worker;
    expect(self?.hosts).toEqual([
      { host: h.fake.url, models: ['qwen3:8b', 'llama3.2:latest'], reachable: true },
      { host: secondUrl, models: ['qwen3:8b', 'mistral:7b'], reachable: true },
    ]);

    const registry = h.runtime.registry;
    const ids = await Promise.all([1, 2].map(() => registry.start({ task: ENDPOINT_TASK }).then((r) => r.id)));
    const views = await Promise.all(ids.map((id) => registry.waitFor(id)));
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed']);
    // Each host served one run's two calls, one at a time.
    expect(chats(h.fake)).toHaveLength(2);
    expect(chats(second)).toHaveLength(2);
    const hosts = await Promise.all(ids.map(async (id) => startedHost(await h!.runtime.store.events(id))));
    expect(new Set(hosts)).toEqual(new Set([h.fake.url, secondUrl]));
    for (const [i, id] of ids.entries()) {
      const events = await h.runtime.store.events(id);
      // All its calls went to the host it was given, and its state says which.
      const calls = events.filter((e) => e.type === 'llm_call_started');
      expect(calls.map((c) => c.host)).toEqual([hosts[i], hosts[i]]);
      expect(views[i]!.host).toBe(hosts[i]);
    }

    // A model only the second host has goes there, though the first is idle.
    const before = { first: chats(h.fake).length, second: chats(second).length };
    const only = await h.run(ENDPOINT_TASK, { model: 'mistral:7b' });
    expect(only.result.status).toBe('completed');
    // Checked for readiness and named at creation on the host that has it, too.
    expect(only.events[0]).toMatchObject({ type: 'run_created', host: secondUrl });
    expect(startedHost(only.events)).toBe(secondUrl);
    expect(only.view.host).toBe(secondUrl);
    expect(chats(h.fake)).toHaveLength(before.first);
    expect(chats(second).length).toBe(before.second + 2);
  });
});
