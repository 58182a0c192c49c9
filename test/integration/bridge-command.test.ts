import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bridgeCommand } from '../../server/mcp/bridge-client';

/**
 * Which bridge the client spawns, decided from real files and their times:
 * the bundle only while it is newer than its sources, so that an edited
 * tree never runs a stale bridge (the bundle was once used whenever it
 * existed, and tests ran old bridge code after an edit).
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const HOUR_S = 3600;
const NOW_S = Math.floor(Date.now() / 1000);

/** An app directory holding `files`, each `[relative path, seconds ago it was modified]`. */
function appRoot(files: [string, number][]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-bridge-command-'));
  dirs.push(root);
  for (const [file, ago] of files) {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, '');
    fs.utimesSync(full, NOW_S - ago, NOW_S - ago);
  }
  return root;
}

function entryOf(root: string): string {
  const { args, cwd } = bridgeCommand({ workspace: '/tmp', maxFileBytes: 1, maxListEntries: 1, appRoot: root });
  expect(cwd).toBe(root);
  return args[0] === '--import' ? `tsx ${path.relative(root, args[2]!)}` : path.relative(root, args[0]!);
}

const TSX: [string, number] = ['node_modules/tsx/package.json', 2 * HOUR_S];

describe('bridgeCommand', () => {
  it.each<[string, [string, number][], string]>([
    ['no bundle: the TypeScript entry under tsx', [['server/mcp/bridge-main.ts', HOUR_S], TSX], 'tsx server/mcp/bridge-main.ts'],
    ['a bundle newer than every source', [['server/mcp/bridge-main.ts', HOUR_S], ['lib/policy.ts', HOUR_S], ['dist/bridge.mjs', 60], TSX], 'dist/bridge.mjs'],
    ['a bridge source edited after the build', [['server/mcp/bridge-main.ts', HOUR_S], ['server/mcp/workspace-files.ts', 10], ['dist/bridge.mjs', 60], TSX], 'tsx server/mcp/bridge-main.ts'],
    ['a lib/ source edited after the build', [['server/mcp/bridge-main.ts', HOUR_S], ['lib/deep/policy.ts', 10], ['dist/bridge.mjs', 60], TSX], 'tsx server/mcp/bridge-main.ts'],
    ['dependencies changed after the build', [['server/mcp/bridge-main.ts', HOUR_S], ['package-lock.json', 10], ['dist/bridge.mjs', 60], TSX], 'tsx server/mcp/bridge-main.ts'],
    ['an edit elsewhere in server/ (not the bridge)', [['server/mcp/bridge-main.ts', HOUR_S], ['server/engine/loop.ts', 10], ['dist/bridge.mjs', 60], TSX], 'dist/bridge.mjs'],
    ['a bundle with no sources beside it', [['dist/bridge.mjs', 60]], 'dist/bridge.mjs'],
    ['a stale bundle where tsx is not installed', [['server/mcp/bridge-main.ts', 10], ['dist/bridge.mjs', 60]], 'dist/bridge.mjs'],
  ])('%s', (_case, files, expected) => {
    expect(entryOf(appRoot(files))).toBe(expected);
  });

  it('passes the policy, identity and hard-link flags, and the workspace last', () => {
    const { args } = bridgeCommand({
      workspace: 'ws',
      maxFileBytes: 10,
      maxListEntries: 20,
      appRoot: appRoot([['dist/bridge.mjs', 60]]),
      delayMs: 5,
      pathPolicy: { added: ['-secrets'], removed: ['.envrc'], rules: [] },
      secretScan: false,
      identity: { dev: '1', ino: '2' },
      allowHardLinks: true,
    });
    expect(args.slice(1)).toEqual([
      '--max-file-bytes', '10', '--max-list-entries', '20', '--delay-ms', '5',
      '--deny-add=-secrets', '--deny-remove=.envrc', '--no-secret-scan',
      '--workspace-identity', '1:2', '--allow-hard-links', '--', path.resolve('ws'),
    ]);
  });
});
