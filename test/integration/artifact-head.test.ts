import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyRun } from '../../lib/run-state';
import { RunRecorder } from '../../server/runs/recorder';
import { openDatabase } from '../../server/store/db';
import { RunStore } from '../../server/store/run-store';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function storeWith(artifacts: Record<string, string>): RunStore {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-head-'));
  const db = openDatabase(dataDir);
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }), () => db.close());
  const store = new RunStore(db);
  store.createRun({ id: 'r1', createdAt: Date.now(), task: 't', model: 'offline', baseline: true, workspace: '/ws', ownerPid: process.pid });
  const recorder = new RunRecorder('r1', store, () => {}, emptyRun);
  for (const [name, text] of Object.entries(artifacts)) recorder.artifact(name, text);
  recorder.emit({ type: 'run_started' });
  return store;
}

describe('RunStore.artifactHead: the beginning of a stored file without reading the rest', () => {
  it('returns the first bytes and the whole size, and the whole text when it is short', () => {
    const big = 'line\n'.repeat(200_000);
    const store = storeWith({ big, small: 'a\nb\n' });
    expect(store.artifactHead('r1', 'big', 12)).toEqual({ text: 'line\nline\nli', bytes: big.length });
    expect(store.artifactHead('r1', 'small', 12)).toEqual({ text: 'a\nb\n', bytes: 4 });
    expect(store.artifactHead('r1', 'missing', 12)).toBeNull();
  });

  it('leaves out a character the cut splits, never a broken one', () => {
    const store = storeWith({ utf8: 'ab€cd😀' }); // € is 3 bytes, 😀 is 4
    expect(store.artifactHead('r1', 'utf8', 3)?.text).toBe('ab');
    expect(store.artifactHead('r1', 'utf8', 5)?.text).toBe('ab€');
    expect(store.artifactHead('r1', 'utf8', 9)?.text).toBe('ab€cd');
    expect(store.artifactHead('r1', 'utf8', 11)?.text).toBe('ab€cd😀');
  });
});
