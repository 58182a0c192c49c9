import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../lib/doctor';
import { loadConfig } from '../../server/config';
import { runDoctor } from '../../server/doctor/checks';
import { PgDatabase } from '../../server/store/pg/database';
import { PgWorkerStore } from '../../server/store/pg/worker-store';
import { startFakeOllama } from '../support/fake-ollama';
import { APP_ROOT, SAMPLE_WORKSPACE } from '../support/harness';
import { databaseForTest } from '../support/postgres';

/**
 * On PostgreSQL a run waits for a live worker that serves its model and
 * reaches its workspace: the setup checks count those workers, on a real
 * database, and are not "ready" when none can take the run.
 */

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(extra: Record<string, string> = {}) {
  const ollama = await startFakeOllama({ probe: [{ content: '{"city":"Paris","sum":5}' }] });
  cleanups.push(() => ollama.close());
  const database = await databaseForTest(cleanups);
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-doctor-workers-'));
  cleanups.push(() => fs.rmSync(config, { recursive: true, force: true }));
  fs.writeFileSync(path.join(config, 'planscope.config.json'), JSON.stringify({ mcpServers: {} }));
  const vars = {
    OLLAMA_HOST: ollama.url,
    PLANSCOPE_MODEL: 'qwen3:8b',
    PLANSCOPE_WORKSPACE: SAMPLE_WORKSPACE,
    PLANSCOPE_CONFIG: path.join(config, 'planscope.config.json'),
    PLANSCOPE_DATABASE_URL: database.url,
    ...extra,
  };
  const db = new PgDatabase(database.settings);
  cleanups.push(() => db.close());
  await db.ready;
  return { vars, workers: new PgWorkerStore(db) };
}

async function doctor(vars: Record<string, string>) {
  const report = DoctorReport.parse(await runDoctor(loadConfig(vars, APP_ROOT)));
  return { report, workers: report.checks.find((c) => c.id === 'workers_available')! };
}

const worker = (id: string, models: string[], lastBeatAt = Date.now()) => ({
  id,
  host: 'box',
  pid: 1,
  startedAt: lastBeatAt - 1000,
  lastBeatAt,
  stoppedAt: null,
  concurrency: 1,
  hosts: [{ host: 'http://127.0.0.1:11434', models, reachable: true }],
  workspaceRoots: ['/'],
});

describe('the setup checks count the workers that can take a run (PostgreSQL)', () => {
  it('PLANSCOPE_WORKER=off and no worker: not ready, the run would wait no_worker, and the fix says so', async () => {
    const { vars } = await setup({ PLANSCOPE_WORKER: 'off' });
    const { report, workers } = await doctor(vars);
    expect(workers).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('no_worker') as unknown, fix: expect.stringContaining('PLANSCOPE_WORKER=off') as unknown });
    expect(report.ok).toBe(false);
  });

  it('a live worker without the model, then one with it; a lost one does not count', async () => {
    const { vars, workers: store } = await setup({ PLANSCOPE_WORKER: 'off' });
    await store.register(worker('other-model', ['llama3.2:3b']));
    await store.register(worker('lost', ['qwen3:8b'], Date.now() - 10 * 60_000));
    const without = await doctor(vars);
    expect(without.workers).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('no_worker_for_model') as unknown });
    await store.register(worker('serving', ['qwen3:8b']));
    const ready = await doctor(vars);
    expect(ready.workers.verdict).toBe('ok');
    expect(ready.report.ok).toBe(true);
  });

  it('no worker now, but this configuration takes runs itself once a dashboard starts: a warning, not a failure', async () => {
    const { vars } = await setup();
    const { report, workers } = await doctor(vars);
    expect(workers).toMatchObject({ verdict: 'warn', fix: expect.stringContaining('npm run worker') as unknown });
    expect(report.ok).toBe(true);
  });
});
