import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseAuditQuery, type AuditQuery, type NewAuditEntry } from '../../lib/audit';
import { DEFAULT_BUNDLE_LIMITS } from '../../lib/bundle';
import { foldRun } from '../../lib/run-state';
import { exportRun } from '../../server/run-bundles/export';
import { BundleCheckPool } from '../../server/run-bundles/check-pool';
import { importBundle } from '../../server/run-bundles/import';
import { openStores, type Stores } from '../../server/store/stores';
import { runCli, TSX_ENTRY } from '../support/cli';
import { answer, APP_ROOT, plan, startHarness, type Harness } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/postgres';

/**
 * The audit trail on both stores: entries filtered by person, action, run and time, paged newest first by a cursor
 * that neither repeats nor skips an entry; the CLI's token changes signed; a run's starter in its `run_created`;
 * and a bundle carrying its run's entries, which an import keeps as the bundle's claims beside its own.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
let pool: BundleCheckPool | null = null;
afterAll(() => pool?.close());

type Kind = 'sqlite' | 'postgresql';

async function databaseFor(kind: Kind): Promise<TestDatabase | null> {
  if (kind === 'sqlite') return null;
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

async function emptyStores(kind: Kind): Promise<{ stores: Stores; env: Record<string, string> }> {
  const database = await databaseFor(kind);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-audit-'));
  const stores = openStores({ dataDir, database: database?.settings ?? null });
  cleanups.push(async () => {
    await stores.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  await stores.ready;
  return { stores, env: database ? { PLANSCOPE_DATABASE_URL: database.url } : { PLANSCOPE_DATA_DIR: dataDir } };
}

const entry = (person: string, action: NewAuditEntry['action'], runId: string | null = null): NewAuditEntry => ({ person, action, runId, subject: null, detail: null, imported: false });
const query = (q: Partial<AuditQuery>): AuditQuery => ({ limit: 50, ...q });

for (const kind of ['sqlite', 'postgresql'] as const) {
  describe(`the audit trail on ${kind}`, () => {
    it('lists entries newest first, filtered by person, action, run and time, a page at a time', async () => {
      const { stores } = await emptyStores(kind);
      const { audit } = stores;
      await audit.record(entry('ana', 'run_started', 'run-1'), 1000);
      await audit.record(entry('bo', 'verdict_given', 'run-1'), 2000);
      await audit.record(entry('ana', 'plan_decided', 'run-2'), 3000);
      await audit.record(entry('bo', 'token_created'), 4000);
      const stored = await audit.record({ ...entry('ana', 'verdict_given', 'run-2'), subject: 'claim 1', detail: 'incorrect' }, 5000);
      expect(stored).toEqual({ id: expect.any(Number), at: 5000, person: 'ana', action: 'verdict_given', runId: 'run-2', subject: 'claim 1', detail: 'incorrect', imported: false });

      const people = async (q: Partial<AuditQuery>) => (await audit.list(query(q))).map((e) => `${e.person}:${e.action}`);
      expect(await people({})).toEqual(['ana:verdict_given', 'bo:token_created', 'ana:plan_decided', 'bo:verdict_given', 'ana:run_started']);
      expect(await people({ person: 'bo' })).toEqual(['bo:token_created', 'bo:verdict_given']);
      expect(await people({ action: 'verdict_given' })).toEqual(['ana:verdict_given', 'bo:verdict_given']);
      expect(await people({ run: 'run-1' })).toEqual(['bo:verdict_given', 'ana:run_started']);
      expect(await people({ since: 2000, until: 4000 })).toEqual(['ana:plan_decided', 'bo:verdict_given']);
      expect(await people({ person: 'ana', run: 'run-2', action: 'plan_decided' })).toEqual(['ana:plan_decided']);

      // Pages of two by the cursor: every entry once, in order.
      const seen: string[] = [];
      let before: number | undefined;
      for (let page = 0; page < 5; page++) {
        const entries = await audit.list(query({ limit: 2, ...(before !== undefined && { before }) }));
        seen.push(...entries.map((e) => `${e.person}:${e.action}`));
        if (entries.length < 2) break;
        before = entries.at(-1)!.id;
      }
      expect(seen).toEqual(await people({}));
      expect(await audit.ofRun('run-2', 10)).toMatchObject([{ action: 'plan_decided' }, { action: 'verdict_given' }]);
    });

    it("records who created and revoked a token from the CLI, with the token's name and role", async () => {
      const { stores, env } = await emptyStores(kind);
      const made = await runCli(TSX_ENTRY, ['token', 'create', '--name', 'cy', '--role', 'reviewer'], { cwd: APP_ROOT, env: { ...env, PLANSCOPE_TOKEN: 'cli-admin-token-1234', PLANSCOPE_TOKEN_NAME: 'dee' } });
      expect(made.code, made.stderr).toBe(0);
      const revoked = await runCli(TSX_ENTRY, ['token', 'revoke', 'cy'], { cwd: APP_ROOT, env });
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(await stores.audit.list(query({}))).toMatchObject([
        { person: 'local', action: 'token_revoked', subject: 'cy', detail: 'reviewer', runId: null },
        { person: 'dee', action: 'token_created', subject: 'cy', detail: 'reviewer', runId: null },
      ]);
      // Two CLI processes, each starting tsx: on a loaded machine one takes 10 to 20 s.
    }, 120_000);
  });
}

describe('a run and its bundle', () => {
  for (const kind of ['sqlite', 'postgresql'] as const) {
    it(`on ${kind}: run_created names who started it; the bundle carries the run's entries and an import keeps them as claims`, async () => {
      const database = await databaseFor(kind);
      const h: Harness = await startHarness(
        {
          planner: [{ content: plan('src/config.ts') }],
          synthesizer: [{ content: answer([{ text: 'The endpoint is configured.', citations: [] }]) }],
        },
        database ? { PLANSCOPE_DATABASE_URL: database.url } : {},
      );
      cleanups.push(() => h.close());
      const { id } = await h.runtime.registry.start({ task: 'How is the model endpoint configured?', workspace: h.workspace }, { by: 'ana' });
      await expect.poll(async () => foldRun(await h.runtime.store.events(id)).status, { timeout: 30_000 }).not.toMatch(/^(queued|running)$/);
      const created = (await h.runtime.store.events(id))[0]!;
      expect(created).toMatchObject({ type: 'run_created', by: 'ana' });
      await h.runtime.audit.record(entry('ana', 'run_started', id), 1000);
      await h.runtime.audit.record({ ...entry('bo', 'call_replayed', id), subject: 'planner#1' }, 2000);

      const bundle = await exportRun({ runs: h.runtime.store, replays: h.runtime.replays, audit: h.runtime.audit }, h.runtime.config, id);
      expect(bundle.audit).toEqual([
        { at: 1000, person: 'ana', action: 'run_started', subject: null, detail: null, imported: false },
        { at: 2000, person: 'bo', action: 'call_replayed', subject: 'planner#1', detail: null, imported: false },
      ]);

      const { stores } = await emptyStores(kind);
      pool ??= new BundleCheckPool(APP_ROOT, { limits: DEFAULT_BUNDLE_LIMITS, threads: 1, queue: 8, timeoutMs: 60_000 });
      const outcome = await importBundle(stores.runs, pool, JSON.stringify(bundle), 'cy', stores.audit);
      expect(await stores.audit.ofRun(outcome.id, 10)).toMatchObject([
        { at: 1000, person: 'ana', action: 'run_started', runId: outcome.id, imported: true },
        { at: 2000, person: 'bo', action: 'call_replayed', runId: outcome.id, subject: 'planner#1', imported: true },
      ]);
      expect((await stores.runs.events(outcome.id))[0]).toMatchObject({ type: 'run_created', by: 'ana' });

      // A bundle's name with a control character is refused whole, before anything is stored.
      const hostile = { ...bundle, audit: [{ ...bundle.audit![0]!, person: 'ana\u0000' }] };
      await expect(importBundle(stores.runs, pool, JSON.stringify(hostile), 'cy', stores.audit)).rejects.toMatchObject({ code: 'bundle_invalid' });
    });
  }
});

describe("the audit trail's address", () => {
  it('reads its filters from parameters, times as milliseconds or ISO dates, and refuses what it does not know', () => {
    expect(parseAuditQuery(new URLSearchParams('person=ana&action=verdict_given&since=2026-12-01&until=1764633600000&limit=10&before=7'))).toEqual({
      ok: true,
      query: { person: 'ana', action: 'verdict_given', since: Date.parse('2026-12-01'), until: 1764633600000, limit: 10, before: 7 },
    });
    expect(parseAuditQuery(new URLSearchParams('person='))).toEqual({ ok: true, query: { limit: 50 } });
    expect(parseAuditQuery(new URLSearchParams('limit=201'))).toMatchObject({ ok: false, message: expect.stringContaining('limit') });
    expect(parseAuditQuery(new URLSearchParams('action=deleted_everything'))).toMatchObject({ ok: false, message: expect.stringContaining('action') });
    expect(parseAuditQuery(new URLSearchParams('since=yesterday'))).toMatchObject({ ok: false, message: expect.stringContaining('since') });
    expect(parseAuditQuery(new URLSearchParams('who=ana'))).toMatchObject({ ok: false, message: expect.stringContaining('who') });
  });
});
