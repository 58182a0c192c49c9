import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/sqlite/db';

/**
 * The SQLite store holds every observed file and prompt: only its owner may
 * read it, whatever the umask, on a fresh data directory and on one an
 * earlier version left world-readable.
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-modes-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

function withUmask<T>(umask: number, fn: () => T): T {
  const before = process.umask(umask);
  try {
    return fn();
  } finally {
    process.umask(before);
  }
}

/** Opens the store, writes through it (so the WAL and its index exist), and checks every file's mode while it is open. */
function openAndWrite(dataDir: string): Record<string, number> {
  const db = openDatabase(dataDir);
  try {
    db.exec("CREATE TABLE IF NOT EXISTS probe (text TEXT); INSERT INTO probe VALUES ('a prompt')");
    const file = path.join(dataDir, 'planscope.db');
    return Object.fromEntries(['', '-wal', '-shm'].map((suffix) => [`planscope.db${suffix}`, mode(`${file}${suffix}`)]));
  } finally {
    db.close();
  }
}

const PRIVATE = { 'planscope.db': 0o600, 'planscope.db-wal': 0o600, 'planscope.db-shm': 0o600 };

describe('the SQLite store is private to its owner', () => {
  for (const umask of [0o022, 0o002, 0o000]) {
    it(`a new data directory is 0700 and its database, -wal and -shm 0600 (umask ${umask.toString(8).padStart(3, '0')})`, () => {
      const dataDir = path.join(tempDir(), 'nested', 'data');
      const modes = withUmask(umask, () => openAndWrite(dataDir));
      expect(mode(dataDir)).toBe(0o700);
      expect(modes).toEqual(PRIVATE);
    });
  }

  it('a store an earlier version left 0644 (with its -wal and -shm) is made 0600 when opened, its rows kept', () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'planscope.db');
    withUmask(0o022, () => {
      // As SQLite made them before: the database, and a WAL and index left by a process that was killed.
      const old = new Database(file);
      old.pragma('journal_mode = WAL');
      old.exec("CREATE TABLE earlier (text TEXT); INSERT INTO earlier VALUES ('kept')");
      for (const suffix of ['', '-wal', '-shm']) fs.chmodSync(`${file}${suffix}`, 0o644);
      expect(mode(`${file}-wal`)).toBe(0o644);
      const reopened = openDatabase(dataDir);
      try {
        for (const suffix of ['', '-wal', '-shm']) expect(mode(`${file}${suffix}`), suffix || 'the database').toBe(0o600);
        expect(reopened.prepare('SELECT text FROM earlier').pluck().all()).toEqual(['kept']);
      } finally {
        reopened.close();
        old.close();
      }
    });
  });

  it('a group- or world-writable store is made 0600 too, and a data directory that existed keeps its own mode', () => {
    const dataDir = tempDir();
    fs.chmodSync(dataDir, 0o755);
    const file = path.join(dataDir, 'planscope.db');
    withUmask(0o000, () => new Database(file).close());
    fs.chmodSync(file, 0o666);
    expect(openAndWrite(dataDir)).toEqual(PRIVATE);
    expect(mode(dataDir)).toBe(0o755);
  });
});
