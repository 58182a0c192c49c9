import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewRunEvent } from '../../lib/events';
import type { NewRunInput } from '../../lib/run-row';
import { emptyRun } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { runLimits } from '../../server/runs/run-limits';
import { RunRecorder } from '../../server/runs/recorder';
import { openRuntime, type Runtime } from '../../server/runtime';
import { APP_ROOT } from '../support/harness';
import { databaseForTest } from '../support/postgres';

/**
 * Recovery judges a run's owner only where it can: on this host, by pid.
 * A run owned by a process on another machine is left to it, whatever its
 * pid means here; one owned on this host by a process that is gone, or by
 * an earlier process that had our pid, is marked interrupted. The same on
 * both stores.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openOn(store: 'SQLite' | 'PostgreSQL'): Promise<Runtime> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-owners-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = { PLANSCOPE_DATA_DIR: dataDir, PLANSCOPE_MODEL: 'offline' };
  if (store === 'PostgreSQL') {
    env.PLANSCOPE_DATABASE_URL = (await databaseForTest(cleanups)).url;
  }
  // A dashboard's runtime: on PostgreSQL it takes the runs it starts from the queue.
  const runtime = await openRuntime(loadConfig(env, APP_ROOT), { worker: true });
  cleanups.push(() => runtime.close());
  await runtime.recovered;
  return runtime;
}

/** The pid of a process that has just ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function livePid(): number {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  cleanups.push(() => void child.kill('SIGKILL'));
  return child.pid!;
}

/** A run some process left `running`, as its row and first two events. */
async function leftRunning(runtime: Runtime, id: string, owner: Pick<NewRunInput, 'ownerPid' | 'ownerHost' | 'ownerStart'>): Promise<void> {
  await runtime.store.createRun({ id, createdAt: Date.now(), task: 't', model: 'offline', baseline: true, workspace: '/ws', ...owner });
  const recorder = new RunRecorder(id, runtime.store, () => {}, emptyRun);
  const created: NewRunEvent = { type: 'run_created', task: 't', model: 'offline', baseline: true, host: null, workspace: '/ws', strategy: 'plan-execute', profile: 'file', limits: runLimits(runtime.config, { profile: 'file' }) };
  recorder.emit(created);
  recorder.emit({ type: 'run_started' });
  await recorder.flushed();
}

describe.each(['SQLite', 'PostgreSQL'] as const)('recovery on %s', (store) => {
  it('marks interrupted only the runs whose owner on this host is gone, and leaves another host\'s alone', async () => {
    const runtime = await openOn(store);
    const here = os.hostname();
    const gone = await deadPid();
    await leftRunning(runtime, 'another-host', { ownerHost: 'another-machine.example', ownerPid: gone, ownerStart: 'their-start' });
    await leftRunning(runtime, 'gone-here', { ownerHost: here, ownerPid: gone, ownerStart: 'gone-start' });
    await leftRunning(runtime, 'alive-here', { ownerHost: here, ownerPid: livePid(), ownerStart: 'alive-start' });
    await leftRunning(runtime, 'earlier-incarnation', { ownerHost: here, ownerPid: process.pid, ownerStart: 'an-earlier-start' });
    await leftRunning(runtime, 'recorded-by-pid-only', { ownerPid: gone });

    expect(await runtime.registry.recoverInterrupted()).toBe(3);
    const status = async (id: string) => (await runtime.store.getRun(id))?.status;
    expect(await status('another-host')).toBe('running');
    expect(await status('alive-here')).toBe('running');
    expect(await status('gone-here')).toBe('interrupted');
    expect(await status('earlier-incarnation')).toBe('interrupted');
    expect(await status('recorded-by-pid-only')).toBe('interrupted');
  });

  it('records a run\'s owner as this host, this pid and this process\'s start id', async () => {
    const runtime = await openOn(store);
    const { id } = await runtime.registry.start({ task: 'How is the model endpoint configured?' });
    const row = await runtime.store.getRun(id);
    expect(row).toMatchObject({ ownerHost: os.hostname(), ownerPid: process.pid, ownerStart: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    await runtime.registry.waitFor(id);
  });
});
