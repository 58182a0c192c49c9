import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunState } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { BridgeError, connectBridge } from '../../server/mcp/bridge-client';
import { directoryIdentity } from '../../server/mcp/workspace-identity';
import { createRuntime, type Runtime } from '../../server/runtime';
import { bundleBridge } from '../support/bundle';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { answer, plan, until, watchRecorded } from '../support/harness';
import { bridgeProcesses } from '../support/server-process';

/**
 * A workspace swapped after its run was posted (issue #11, finding 2). The
 * allow-list (PLANSCOPE_WORKSPACE_ROOTS) is checked when a run is posted;
 * the directory can then be swapped for a symlink out of the roots, or for
 * another directory, while the run waits in the queue or between two of its
 * reads. ONE table of swaps, each tried at both moments through the real
 * registry, MCP bridge (the shipped bundle) and SQLite store: every swap
 * fails the run `workspace_changed`, and nothing of what was swapped in
 * (it all carries the canary) is read or stored. Controls show that an
 * untouched workspace, one renamed away and back, and changed files inside
 * it still run.
 */

const CANARY = 'sk-planscope-canary-swap-3307';
const POSTED: Record<string, string> = { 'README.md': '# the workspace as posted\n', 'src/config.ts': "export const host = 'as posted';\n" };
const ELSEWHERE: Record<string, string> = { 'README.md': `# not the posted workspace ${CANARY}\n`, 'src/config.ts': `export const key = '${CANARY}';\n` };

/** One case's directories: the workspace at <root>/<n>/team/ws, and a look-alike outside the roots. */
interface Tree {
  team: string;
  ws: string;
  outsideTeam: string;
  outsideWs: string;
}

type When = 'queued' | 'between reads';

interface SwapCase {
  name: string;
  swap: (t: Tree) => void;
  /** When the swap happens; both unless said. */
  when?: When[];
  expected: 'workspace_changed' | 'completed';
}

const SWAPS: SwapCase[] = [
  {
    name: 'swapped for a symlink to a directory outside the roots',
    swap: (t) => {
      fs.renameSync(t.ws, `${t.ws}-posted`);
      fs.symlinkSync(t.outsideWs, t.ws);
    },
    expected: 'workspace_changed',
  },
  {
    name: 'a parent folder swapped for a symlink outside the roots',
    swap: (t) => {
      fs.renameSync(t.team, `${t.team}-posted`);
      fs.symlinkSync(t.outsideTeam, t.team);
    },
    expected: 'workspace_changed',
  },
  {
    name: 'swapped for another directory (rename, then mkdir at the same path)',
    swap: (t) => {
      fs.renameSync(t.ws, `${t.ws}-posted`);
      fill(t.ws, ELSEWHERE);
    },
    expected: 'workspace_changed',
  },
  {
    name: 'renamed away, and a symlink to it put in its place',
    swap: (t) => {
      fs.renameSync(t.ws, `${t.ws}-posted`);
      fs.symlinkSync('ws-posted', t.ws);
    },
    when: ['queued'],
    expected: 'workspace_changed',
  },
  {
    name: 'removed',
    swap: (t) => fs.rmSync(t.ws, { recursive: true }),
    expected: 'workspace_changed',
  },
  {
    name: 'replaced by a file',
    swap: (t) => {
      fs.rmSync(t.ws, { recursive: true });
      fs.writeFileSync(t.ws, CANARY);
    },
    when: ['queued'],
    expected: 'workspace_changed',
  },
  // Controls: the same directory at the same path is the same workspace.
  { name: 'untouched (control)', swap: () => {}, expected: 'completed' },
  {
    name: 'renamed away and back (control)',
    swap: (t) => {
      fs.renameSync(t.ws, `${t.ws}-away`);
      fs.renameSync(`${t.ws}-away`, t.ws);
    },
    when: ['queued'],
    expected: 'completed',
  },
  {
    name: 'a file inside changed (control: contents may change, the directory is the same)',
    swap: (t) => fs.writeFileSync(path.join(t.ws, 'src', 'config.ts'), "export const host = 'edited';\n"),
    when: ['queued'],
    expected: 'completed',
  },
];

const CASES = SWAPS.flatMap((c) => (c.when ?? (['queued', 'between reads'] as const)).map((when) => ({ ...c, when })));

let base: string;
let root: string;
let bundledAppRoot: string;
let fake: FakeOllama;
let caseCount = 0;

function fill(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

function newTree(): Tree {
  caseCount += 1;
  const team = path.join(root, String(caseCount), 'team');
  const outsideTeam = path.join(base, 'outside', String(caseCount), 'team');
  const t = { team, ws: path.join(team, 'ws'), outsideTeam, outsideWs: path.join(outsideTeam, 'ws') };
  fill(t.ws, POSTED);
  fill(t.outsideWs, ELSEWHERE);
  return t;
}

function startRuntime(dataDir: string, env: Record<string, string> = {}): Runtime {
  return createRuntime(
    loadConfig(
      {
        OLLAMA_HOST: fake.url,
        PLANSCOPE_MODEL: 'qwen3:8b',
        PLANSCOPE_WORKSPACE: path.join(root, 'holder'),
        PLANSCOPE_WORKSPACE_ROOTS: root,
        PLANSCOPE_DATA_DIR: dataDir,
        ...env,
      },
      bundledAppRoot,
    ),
  );
}

/** Everything a run left behind, as one string. */
async function stored(runtime: Runtime, id: string, view: RunState): Promise<string> {
  return [JSON.stringify(await runtime.store.events(id)), JSON.stringify(view), ...(await runtime.store.listArtifacts(id)).map((a) => a.content)].join('\n');
}

const chatRequests = () => fake.requests.filter((r) => r.path === '/api/chat').length;

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-swap-')));
  root = path.join(base, 'root');
  fill(path.join(root, 'holder'), { 'README.md': '# holds the only run slot\n' });
  // The shipped bridge bundle, built fresh into a private app root so a stale dist/ is never what is tested.
  bundledAppRoot = path.join(base, 'app');
  await bundleBridge(bundledAppRoot);
  fake = await startFakeOllama();
});

afterAll(async () => {
  await fake?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe('a workspace swapped after its run was posted: one table, two moments', () => {
  let runtime: Runtime;
  let dataDir: string;
  const synthesizer = [{ content: answer([{ text: 'Nothing to report.' }]) }];

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-swap-data-'));
    // One run at a time (so a run can be held in the queue), one step at a time and no
    // read-ahead (so a swap can fall between two reads), one round (a refusal ends the run).
    runtime = startRuntime(dataDir, {
      PLANSCOPE_MAX_CONCURRENT_RUNS: '1',
      PLANSCOPE_STEP_CONCURRENCY: '1',
      PLANSCOPE_READ_AHEAD: 'false',
      PLANSCOPE_MAX_ROUNDS: '1',
    });
  });
  afterAll(async () => {
    await runtime?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('has every swap at both moments where both apply', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(12);
    expect(new Set(CASES.map((c) => `${c.when}: ${c.name}`)).size).toBe(CASES.length);
  });

  /** Posts a run while another holds the only slot, swaps, then lets it start. */
  async function whileQueued(c: Pick<SwapCase, 'name' | 'swap'>, t: Tree): Promise<{ id: string; view: RunState; bridgesBefore: number }> {
    fake.setScript({ planner: [{ hang: true }, { content: plan('README.md', 'src/config.ts') }], synthesizer });
    const chats = chatRequests();
    const holder = await runtime.registry.start({ task: 'hold the only run slot' });
    let id: string;
    let bridgesBefore: number;
    try {
      // The holder must have taken the hanging reply before it is cancelled, or the queued run would get it.
      await until('the holder to be planning', () => chatRequests() > chats);
      ({ id } = await runtime.registry.start({ task: `swap while queued: ${c.name}`, workspace: t.ws }));
      expect((await runtime.store.getRun(id))?.status).toBe('queued');
      c.swap(t);
      bridgesBefore = bridgeProcesses().length;
    } finally {
      runtime.registry.cancel(holder.id);
      expect((await runtime.registry.waitFor(holder.id)).status).toBe('cancelled');
    }
    return { id, view: await runtime.registry.waitFor(id), bridgesBefore };
  }

  /** Swaps as soon as the first of two reads has finished, before the second begins. */
  async function betweenReads(c: Pick<SwapCase, 'name' | 'swap'>, t: Tree): Promise<{ id: string; view: RunState; bridgesBefore: null }> {
    fake.setScript({ planner: [{ content: plan('README.md', 'src/config.ts') }], synthesizer });
    const { id } = await runtime.registry.start({ task: `swap between reads: ${c.name}`, workspace: t.ws });
    let swapped = false;
    // As the first step's end is recorded: by the time it is published, the second read may have begun.
    const unwatch = watchRecorded(runtime.store, id, (e) => {
      if (e.type === 'step_finished' && e.index === 0 && !swapped) {
        swapped = true;
        c.swap(t);
      }
    });
    const view = await runtime.registry.waitFor(id).finally(unwatch);
    expect(swapped, 'the first read finished and the swap was made').toBe(true);
    return { id, view, bridgesBefore: null };
  }

  it.each(CASES.map((c) => [`${c.when}: ${c.name}`, c] as const))('%s', async (_name, c) => {
    const t = newTree();
    const { id, view, bridgesBefore } = c.when === 'queued' ? await whileQueued(c, t) : await betweenReads(c, t);
    const events = await runtime.store.events(id);
    const everything = await stored(runtime, id, view);
    expect(everything).not.toContain(CANARY);
    expect(events.filter((e) => e.type === 'run_finished')).toHaveLength(1);

    if (c.expected === 'completed') {
      expect(view.status, JSON.stringify(view.error)).toBe('completed');
      expect(Object.keys(view.observations).sort()).toEqual(['README.md', 'src/config.ts']);
      return;
    }
    expect(view.status).toBe('failed');
    expect(view.error?.code).toBe('workspace_changed');
    // It names the workspace as posted, never where the path leads now.
    expect(view.error?.message).not.toContain(path.join(base, 'outside'));
    if (c.when === 'queued') {
      // Refused before anything ran: no model call, no step, no bridge process started for it.
      expect(events.map((e) => e.type)).toEqual(['run_created', 'run_finished']);
      expect(bridgeProcesses().length).toBeLessThanOrEqual(bridgesBefore ?? 0);
    } else {
      // The read before the swap stands (the posted README); the one after it was refused.
      expect(Object.keys(view.observations)).toEqual(['README.md']);
      const steps = view.rounds[0]!.steps;
      expect(steps.map((s) => s.status)).toEqual(['done', 'failed']);
      expect(steps[1]!.error?.code).toBe('workspace_changed');
      expect((await runtime.store.listArtifacts(id)).some((a) => a.content === POSTED['README.md'])).toBe(true);
    }
  });
});

describe('the bridge pool never lends a bridge opened for one directory to another at the same path', () => {
  it('a directory swapped in gets its own bridge; swapped back, the first bridge serves it again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-swap-pool-'));
    const runtime = startRuntime(dataDir);
    try {
      const synthesizer = [{ content: answer([{ text: 'Nothing to report.' }]) }];
      fake.setScript({ planner: [{ content: plan('README.md') }], synthesizer });
      const t = newTree();
      const second = { 'README.md': '# posted after the swap: a workspace of its own\n' };
      const readmeOf = async (): Promise<{ text: string; pids: number[] }> => {
        const { id } = await runtime.registry.start({ task: 'read the README', workspace: t.ws });
        const view = await runtime.registry.waitFor(id);
        expect(view.status, JSON.stringify(view.error)).toBe('completed');
        const artifact = (await runtime.store.listArtifacts(id)).find((a) => a.name === view.observations['README.md']!.artifact);
        const pids = runtime.bridges.stats().bridges.map((b) => b.pid ?? -1);
        return { text: artifact?.content ?? '', pids };
      };

      const first = await readmeOf();
      expect(first.text).toBe(POSTED['README.md']);
      expect(first.pids).toHaveLength(1);

      fs.renameSync(t.ws, `${t.ws}-posted`);
      fill(t.ws, second);
      const swapped = await readmeOf();
      expect(swapped.text).toBe(second['README.md']);
      // A second bridge, beside the first (still idle in the pool, for its own directory).
      expect(swapped.pids).toHaveLength(2);
      expect(swapped.pids).toEqual(expect.arrayContaining(first.pids));

      fs.renameSync(t.ws, `${t.ws}-second`);
      fs.renameSync(`${t.ws}-posted`, t.ws);
      const back = await readmeOf();
      expect(back.text).toBe(POSTED['README.md']);
      // No third bridge: the directory as first posted is served by the bridge opened for it.
      expect(back.pids.sort()).toEqual(swapped.pids.sort());
    } finally {
      await runtime.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the bridge alone, given the identity the run was posted with', () => {
  const connect = (workspace: string, identity: { dev: string; ino: string }) =>
    connectBridge({ workspace, identity, maxFileBytes: 64 * 1024, maxListEntries: 100, appRoot: bundledAppRoot });

  it('refuses to start on another directory, or on a path that is not the real one', async () => {
    const t = newTree();
    const other = directoryIdentity(t.outsideWs);
    await expect(connect(t.ws, other)).rejects.toThrow(/workspace_changed/);
    const alias = path.join(base, `alias-${caseCount}`);
    fs.symlinkSync(t.ws, alias);
    await expect(connect(alias, directoryIdentity(t.ws))).rejects.toThrow(/workspace_changed/);
  });

  it('refuses list, stat and read once another directory stands there, serves again once it is back, and stays up', async () => {
    const t = newTree();
    const bridge = await connect(t.ws, directoryIdentity(t.ws));
    const seen: string[] = [];
    try {
      expect((await bridge.readFile('README.md')).ok).toBe(true);

      fs.renameSync(t.ws, `${t.ws}-posted`);
      fill(t.ws, ELSEWHERE);
      const read = await bridge.readFile('README.md');
      const stat = await bridge.statFile('README.md');
      const listing = await bridge.listFiles().catch((error: unknown) => error);
      seen.push(JSON.stringify([read, stat, String(listing)]));
      expect(read).toMatchObject({ ok: false, code: 'workspace_changed' });
      expect(stat).toMatchObject({ ok: false, code: 'workspace_changed' });
      expect(listing).toBeInstanceOf(BridgeError);
      expect((listing as BridgeError).code).toBe('workspace_changed');

      fs.rmSync(t.ws, { recursive: true });
      fs.symlinkSync(t.outsideWs, t.ws);
      const through = await bridge.readFile('src/config.ts');
      seen.push(JSON.stringify(through));
      expect(through).toMatchObject({ ok: false, code: 'workspace_changed' });

      fs.rmSync(t.ws);
      fs.renameSync(`${t.ws}-posted`, t.ws);
      expect(await bridge.readFile('README.md')).toMatchObject({ ok: true, value: { text: POSTED['README.md'] } });
      expect(seen.join('\n')).not.toContain(CANARY);
      expect(bridge.restartCount).toBe(0);
    } finally {
      await bridge.close();
    }
  });
});
