import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStores } from '../../server/store/pg/stores';
import { openStores } from '../../server/store/stores';
import { LAST_USED_RESOLUTION_MS, type TokenStore } from '../../server/store/token-store';
import { runCli, TSX_ENTRY } from '../support/cli';
import { APP_ROOT } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/postgres';

/**
 * Named tokens on both stores, made and revoked by the CLI as an admin would, then identified as the gate does:
 * the token is printed once, only its SHA-256 is at rest, its last use is recorded, a revoked one is nobody.
 */

interface Place {
  env: Record<string, string>;
  /** Every stored token row, as the database holds it. */
  rows(): Promise<Record<string, unknown>[]>;
  open(): { tokens: TokenStore; ready: Promise<void>; close(): Promise<void> };
}

let dataDir: string;
let database: TestDatabase;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-tokens-'));
  database = await createTestDatabase();
});
afterAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

const places: Record<string, () => Place> = {
  sqlite: () => ({
    env: { PLANSCOPE_DATA_DIR: dataDir },
    rows: async () => {
      const db = new Database(path.join(dataDir, 'planscope.db'), { readonly: true });
      try {
        return db.prepare('SELECT * FROM tokens').all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
    open: () => openStores({ dataDir, database: null }),
  }),
  postgres: () => ({
    env: { PLANSCOPE_DATABASE_URL: database.url },
    rows: () => database.sql('SELECT * FROM tokens'),
    open: () => openPgStores(database.settings),
  }),
};

const cli = (place: Place, args: string[]) => runCli(TSX_ENTRY, ['token', ...args], { cwd: APP_ROOT, env: place.env });

for (const [kind, placeOf] of Object.entries(places)) {
  describe(`named tokens on ${kind}`, () => {
    it('are created once, kept hashed, identified with their last use, refused a second name, and gone once revoked', async () => {
      const place = placeOf();
      const created = await cli(place, ['create', '--name', 'ana', '--role', 'reviewer', '--json']);
      expect(created.code, created.stderr).toBe(0);
      const { token: secret, id, name, role, lastUsedAt } = JSON.parse(created.stdout) as Record<string, unknown>;
      expect({ name, role, lastUsedAt }).toEqual({ name: 'ana', role: 'reviewer', lastUsedAt: null });
      expect(secret).toMatch(/^pst_[\w-]{43}$/);

      // At rest: the hash, never the token.
      const [row, ...others] = await place.rows();
      expect(others).toEqual([]);
      expect(row!['secret_hash']).toBe(createHash('sha256').update(String(secret)).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(String(secret));

      const taken = await cli(place, ['create', '--name', 'ana', '--role', 'admin']);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain('token_name_taken');
      const badRole = await cli(place, ['create', '--name', 'bo', '--role', 'owner']);
      expect(badRole.code).toBe(2);
      expect(badRole.stderr).toContain('--role: one of viewer, reviewer, operator, admin');

      const stores = place.open();
      try {
        await stores.ready;
        const now = Date.now();
        expect(await stores.tokens.identify(String(secret), now)).toMatchObject({ id, name: 'ana', role: 'reviewer', lastUsedAt: now });
        expect(Number((await place.rows())[0]!['last_used_at'])).toBe(now);
        // Within the resolution the last use is not written again; after it, it is.
        expect((await stores.tokens.identify(String(secret), now + 1000))?.lastUsedAt).toBe(now);
        const later = now + LAST_USED_RESOLUTION_MS + 1;
        expect((await stores.tokens.identify(String(secret), later))?.lastUsedAt).toBe(later);
        expect(await stores.tokens.identify(`${String(secret)}x`)).toBeNull();
        expect(await stores.tokens.identify(String(row!['secret_hash']))).toBeNull();

        const listed = await cli(place, ['list', '--json']);
        expect(JSON.parse(listed.stdout)).toEqual([{ id, name: 'ana', role: 'reviewer', createdAt: expect.any(Number), lastUsedAt: later }]);
        const table = await cli(place, ['list']);
        expect(table.stdout).toMatch(/ana\s+reviewer/);

        const revoked = await cli(place, ['revoke', 'ana']);
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(await stores.tokens.identify(String(secret))).toBeNull();
        const again = await cli(place, ['revoke', String(id)]);
        expect(again.code).toBe(1);
        expect(again.stderr).toContain('token_not_found');
      } finally {
        await stores.close();
      }
      // Seven CLI processes, each starting tsx: on a loaded machine one takes 10 to 20 s.
    }, 240_000);
  });
}
