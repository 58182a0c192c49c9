import type { RunEvent } from '../../lib/events';
import type { RunState } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { createRuntime, type Runtime } from '../../server/runtime';
import { APP_ROOT, removeDir, tempDir } from './paths';

/** A real runtime (SQLite file in a temp dir, MCP bridge over stdio, ollama client) for one workspace. */
export interface BenchRuntime {
  runtime: Runtime;
  dataDir: string;
  /**
   * One whole run, timed from `start` to its final state: its wall time, and
   * the process's CPU time over the same span (all threads: V8's compiler and
   * GC included). Reading the log back afterwards is the bench's own work and
   * is in neither.
   */
  run(task: string): Promise<{ id: string; wallMs: number; cpuMs: number; view: RunState; events: RunEvent[] }>;
  close(): Promise<void>;
}

export function benchRuntime(opts: { ollamaUrl: string; workspace: string; env?: Record<string, string>; dataDir?: string }): BenchRuntime {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? tempDir('data');
  const config = loadConfig(
    {
      OLLAMA_HOST: opts.ollamaUrl,
      PLANSCOPE_MODEL: 'qwen3:8b',
      PLANSCOPE_WORKSPACE: opts.workspace,
      PLANSCOPE_DATA_DIR: dataDir,
      ...opts.env,
    },
    APP_ROOT,
  );
  const runtime = createRuntime(config);
  return {
    runtime,
    dataDir,
    async run(task) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const { id } = await runtime.registry.start({ task });
      const view = await runtime.registry.waitFor(id);
      const wallMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      return { id, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, view, events: await runtime.store.events(id) };
    },
    async close() {
      await runtime.close();
      if (ownDir) removeDir(dataDir);
    },
  };
}

/** Sum of what the model calls took as the engine measured them (ollama client + HTTP + fake). */
export function modelMs(events: RunEvent[]): number {
  return events.reduce((n, e) => (e.type === 'llm_call_finished' ? n + e.durationMs : n), 0);
}

export function callCount(events: RunEvent[]): number {
  return events.filter((e) => e.type === 'llm_call_finished').length;
}
