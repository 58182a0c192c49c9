/**
 * The timing loop shared by the two runner entries (runner-ours.ts,
 * runner-langgraph.ts). bench/m-peer.ts bundles each entry with esbuild and
 * runs it under plain node, one process per implementation, so each process
 * holds only its own code and has its own peak memory. The processes stay
 * up side by side and m-peer asks them for one run at a time, alternating,
 * so a busy machine slows both alike. Protocol, one line each way:
 *
 *   stdin  "run <delayMs>"  ->  stdout {"wallMs": n, "calls": n}
 *   stdin  "done"           ->  stdout {"maxRssKb": n, ...}   then exit
 *
 *   node bench/.cache/runner-ours.mjs --impl ours --fake http://127.0.0.1:PORT
 *
 * The scenario is the same for both: plan 4 reads (one file missing),
 * re-plan, answer: 3 model calls.
 */
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { copyWorkspace, removeDir } from '../lib/paths';
import { replanScript, TASK } from '../lib/scenario';

export interface Implementation {
  run(task: string): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;
}

export interface RunReply {
  wallMs: number;
  calls: number;
}

export interface FinalReply {
  /** Peak resident set size of the whole process, kilobytes (getrusage). */
  maxRssKb: number;
  endRssBytes: number;
  endHeapUsedBytes: number;
}

export async function runBench(setup: (impl: string, workspace: string, fakeUrl: string) => Promise<Implementation>): Promise<void> {
  const { values } = parseArgs({ options: { impl: { type: 'string' }, fake: { type: 'string' } } });
  const impl = values.impl ?? 'ours';
  const fakeUrl = values.fake!;
  const control = async (method: string, route: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${fakeUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fake ${route}: ${res.status}`);
    return res.json();
  };

  const workspace = copyWorkspace();
  const implementation = await setup(impl, workspace, fakeUrl);
  const reply = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  reply({ ready: true });
  try {
    for await (const line of readline.createInterface({ input: process.stdin })) {
      const [command, arg] = line.trim().split(/\s+/);
      if (command === 'done') break;
      if (command !== 'run') throw new Error(`unknown command "${line}"`);
      await control('PUT', '/__fake/script', replanScript(Number(arg)));
      await control('DELETE', '/__fake/requests');
      const started = performance.now();
      const outcome = await implementation.run(TASK);
      const wallMs = performance.now() - started;
      if (!outcome.ok) throw new Error(`${impl}: the run did not go as scripted (${outcome.detail})`);
      const { requests } = (await control('GET', '/__fake/requests')) as { requests: { path: string }[] };
      reply({ wallMs, calls: requests.filter((r) => r.path === '/api/chat').length } satisfies RunReply);
    }
  } finally {
    await implementation.close();
    removeDir(workspace);
  }
  const memory = process.memoryUsage();
  reply({ maxRssKb: process.resourceUsage().maxRSS, endRssBytes: memory.rss, endHeapUsedBytes: memory.heapUsed } satisfies FinalReply);
}
