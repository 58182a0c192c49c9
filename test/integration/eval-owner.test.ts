import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { EvalSettings } from '../../lib/eval';
import { evalSummaries } from '../../server/queries';
import { openDatabase } from '../../server/store/sqlite/db';
import { SqliteEvalStore } from '../../server/store/sqlite/eval-store';
import { startFakeOllama } from '../support/fake-ollama';
import { answer, copyWorkspace, plan } from '../support/harness';
import { startCli } from '../support/cli-process';

/**
 * An evaluation records the process running it, so one whose process died
 * (the eval CLI killed mid-suite) is finished as `interrupted` when it is next
 * read instead of staying `running` forever, while one whose process is
 * still at work is left alone. Real SQLite files, real processes.
 */

const SETTINGS: EvalSettings = { suitePath: '/suite.json', models: ['offline'], strategies: ['plan-execute'], repeat: 1 };
/** Upper bound for any poll in this file: generous for two busy cores, never unbounded. */
const WAIT_MS = 30_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function open(dataDir: string): Database.Database {
  const db = openDatabase(dataDir);
  cleanups.push(() => {
    db.close();
  });
  return db;
}

/** A running evaluation as some process left it, written directly. */
function insertRunning(db: Database.Database, id: string, ownerPid: number | null): void {
  db.prepare(`INSERT INTO evals (id, created_at, suite, settings, status, owner_pid) VALUES (?, ?, 'left', ?, 'running', ?)`).run(
    id,
    Date.now(),
    JSON.stringify(SETTINGS),
    ownerPid,
  );
}

/** Polls `probe` until it returns something; a probe that throws (the other process is mid-migration) counts as "not yet". */
async function until<T>(what: string, probe: () => T | null | undefined | false): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
}

describe('an evaluation whose process is gone', () => {
  it('stays running while the eval CLI lives, and comes back interrupted, items kept, once it was killed', async () => {
    const fake = await startFakeOllama({
      planner: [{ content: plan('src/config.ts') }],
      // The first task is answered; the second task's synthesizer never answers, and the CLI is killed while it waits.
      synthesizer: [{ content: answer([{ text: 'The host comes from OLLAMA_HOST.' }]) }, { hang: true }],
    });
    cleanups.push(() => fake.close());
    const workspace = copyWorkspace();
    cleanups.push(() => fs.rmSync(workspace, { recursive: true, force: true }));
    const dataDir = tempDir('planscope-eval-owner-');
    const suitePath = path.join(dataDir, 'suite.json');
    fs.writeFileSync(
      suitePath,
      JSON.stringify({
        name: 'killed',
        workspace,
        tasks: [
          { id: 'first', category: 'lookup', task: 'Where is the host set?' },
          { id: 'second', category: 'lookup', task: 'Which model is the default?' },
        ],
      }),
    );

    const cli = startCli('eval', ['--suite', suitePath, '--model', 'qwen3:8b', '--no-baseline', '--json'], {
      OLLAMA_HOST: fake.url,
      PLANSCOPE_WORKSPACE: workspace,
      PLANSCOPE_DATA_DIR: dataDir,
    });
    cleanups.push(cli.kill);

    // Read-only until the CLI has migrated the database and stored the first item.
    const dbFile = path.join(dataDir, 'planscope.db');
    await until(`the CLI's database (${cli.output()})`, () => fs.existsSync(dbFile));
    const reader = new Database(dbFile, { readonly: true, fileMustExist: true });
    cleanups.push(() => {
      reader.close();
    });
    const evalId = await until(`the first item (${cli.output()})`, () => {
      const row = reader.prepare('SELECT eval_id FROM eval_items').get() as { eval_id: string } | undefined;
      return row?.eval_id;
    });
    expect(reader.prepare('SELECT owner_pid FROM evals WHERE id = ?').get(evalId)).toEqual({ owner_pid: cli.child.pid });

    // A live owner is left alone, however often the evaluation is read.
    const store = new SqliteEvalStore(open(dataDir));
    expect(await store.get(evalId)).toMatchObject({ status: 'running', error: null, finishedAt: null });
    expect((await evalSummaries(store, 50)).map((e) => [e.id, e.status])).toEqual([[evalId, 'running']]);

    cli.child.kill('SIGKILL');
    expect(await cli.exited).toBe('SIGKILL');

    const record = await store.get(evalId);
    expect(record).toMatchObject({ status: 'interrupted', error: { code: 'interrupted' } });
    expect(record!.error!.message).toContain(`pid ${cli.child.pid}`);
    expect(record!.error!.message).toContain('Runs stored: 1');
    expect(record!.finishedAt).not.toBeNull();
    expect(record!.items.map((i) => i.taskId)).toEqual(['first']);
    expect(await evalSummaries(store, 50)).toMatchObject([{ id: evalId, status: 'interrupted', itemCount: 1 }]);
    // Stored, not only shown: another reader sees the same.
    expect(reader.prepare('SELECT status, error_code FROM evals WHERE id = ?').get(evalId)).toEqual({ status: 'interrupted', error_code: 'interrupted' });
  });

  it('is told apart by its owner: a process that exited, our own pid from an earlier process, none recorded, one still alive', async () => {
    const db = open(tempDir('planscope-eval-owners-'));
    const store = new SqliteEvalStore(db);

    const exited = spawnSync(process.execPath, ['-e', '']);
    expect(exited.status).toBe(0);
    insertRunning(db, 'owner-exited', exited.pid);
    // A container restarted: the earlier process had the pid this one has, and this one does not hold the evaluation.
    insertRunning(db, 'owner-same-pid', process.pid);
    // Recorded before owners were: nothing can say it is still at work.
    insertRunning(db, 'owner-unrecorded', null);

    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
    const sleeperExited = new Promise<void>((resolve) => sleeper.once('exit', () => resolve()));
    cleanups.push(() => {
      if (sleeper.exitCode === null && sleeper.signalCode === null) sleeper.kill('SIGKILL');
    });
    insertRunning(db, 'owner-alive', sleeper.pid!);
    // Created by this process: held here, and a second store on the same database does not take it for an orphan.
    await store.create('owner-here', 'mine', SETTINGS);

    const statusOf = async (id: string) => (await new SqliteEvalStore(db).get(id))?.status;
    expect(await statusOf('owner-exited')).toBe('interrupted');
    expect((await new SqliteEvalStore(db).get('owner-exited'))!.error!.message).toContain(`pid ${exited.pid}`);
    expect(await statusOf('owner-same-pid')).toBe('interrupted');
    expect(await statusOf('owner-unrecorded')).toBe('interrupted');
    expect((await new SqliteEvalStore(db).get('owner-unrecorded'))!.error).toEqual({
      code: 'interrupted',
      message: 'The process running this evaluation was not recorded (it predates owner tracking), so it was never finished. Runs stored: 0.',
    });
    expect(await statusOf('owner-alive')).toBe('running');
    expect(await statusOf('owner-here')).toBe('running');

    sleeper.kill('SIGKILL');
    await sleeperExited;
    expect(await statusOf('owner-alive')).toBe('interrupted');

    // The owner finishing its own evaluation is what ends it, with its error when it failed.
    await store.finish('owner-here', 'failed', { code: 'workspace_not_found', message: 'The workspace /nope does not exist.' });
    expect(await new SqliteEvalStore(db).get('owner-here')).toMatchObject({ status: 'failed', error: { code: 'workspace_not_found' } });
  });
});
