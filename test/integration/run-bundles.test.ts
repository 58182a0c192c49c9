import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_FORMAT, RunBundle } from '../../lib/bundle';
import type { RequestErrorCode } from '../../lib/codes';
import { toResult } from '../../lib/result';
import type { ReplayRecord } from '../../lib/replay';
import { foldRun } from '../../lib/run-state';
import type { Config } from '../../server/config';
import { exportRun } from '../../server/run-bundles/export';
import { importBundle } from '../../server/run-bundles/import';
import { openStores, type Stores } from '../../server/store/stores';
import { runCli, TSX_ENTRY } from '../support/cli';
import { answer, APP_ROOT, plan, startHarness, type Harness, refusalCode } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/postgres';

/**
 * A run exported as a bundle and imported into another store (another data
 * directory, another PostgreSQL database) folds to the same view, with every
 * artifact's hash equal and the replays of its calls as they were; a bad
 * bundle is refused with its code and leaves the store as it was.
 */

const TASK = 'How is the model endpoint configured?';
const ANSWER = answer([
  {
    text: 'The endpoint comes from OLLAMA_HOST with a default of http://127.0.0.1:11434.',
    citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
  },
]);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type StoreKind = 'sqlite' | 'postgresql';

async function harness(kind: StoreKind): Promise<Harness> {
  const database = kind === 'postgresql' ? await createTestDatabase() : null;
  const h = await startHarness(
    { planner: [{ content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ content: ANSWER }] },
    database ? { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' } : {},
  );
  cleanups.push(async () => {
    await h.close();
    await database?.drop();
  });
  return h;
}

/** A second, empty store of the same kind: another data directory, or another database. */
async function otherStore(kind: StoreKind): Promise<Stores> {
  let database: TestDatabase | null = null;
  if (kind === 'postgresql') database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-import-'));
  const stores = openStores({ dataDir, database: database?.settings ?? null });
  cleanups.push(async () => {
    await stores.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  await stores.ready;
  return stores;
}

const exportFrom = (h: Harness, id: string) => exportRun({ runs: h.runtime.store, replays: h.runtime.replays }, h.runtime.config, id);

/**
 * A finished run with people's verdicts on it (events after run_finished)
 * and replays of two of its calls (one with thinking, one whose model call
 * failed), exported.
 */
async function exported(h: Harness): Promise<{ id: string; bundle: RunBundle }> {
  const { id, result } = await h.run(TASK);
  expect(result.status).toBe('completed');
  await h.runtime.verdicts.record(id, { claim: 1, verdict: 'incorrect', note: 'the default is elsewhere' }, 'ana');
  await h.runtime.verdicts.record(id, { claim: 1, verdict: 'correct' }, 'ana');
  await h.runtime.verdicts.record(id, { claim: null, verdict: 'unsure' }, 'local');
  h.fake.setScript({
    planner: [{ content: plan('src/config.ts'), thinking: 'only the config this time' }],
    synthesizer: [{ content: ANSWER }, { status: 500, error: 'out of memory' }],
  });
  const signal = new AbortController().signal;
  await h.runtime.replayer.replay(id, 'planner#1', { options: { temperature: 0.7 } }, signal);
  await h.runtime.replayer.replay(id, 'synthesizer#2', { repeat: 2 }, signal);
  return { id, bundle: await exportFrom(h, id) };
}

/** Every replay of a run with its artifacts' hashes, call by call: what its page's replay panels list. */
async function replaysOf(stores: Pick<Stores, 'runs' | 'replays'>, runId: string) {
  const calls = foldRun(await stores.runs.events(runId)).llmCalls;
  const replays = (await Promise.all(calls.map((c) => stores.replays.list(runId, c.call)))).flat();
  return Promise.all(
    replays.map(async (record) => ({
      record,
      artifacts: (await stores.replays.artifactBytes(record.id)).map((a) => ({ name: a.name, mediaType: a.mediaType, sha256: a.sha256, bytes: a.buffer.length })),
    })),
  );
}

/** A replay as it is apart from where it is stored: its id is the store's, its run id the run's there. */
const unplaced = (record: ReplayRecord) => ({ ...record, id: '', runId: '' });
const unplacedReplay = <T extends { record: ReplayRecord }>(r: T) => ({ ...r, record: unplaced(r.record) });

/** Everything a store holds, to show a refused import changed none of it. */
async function snapshot(stores: Pick<Stores, 'runs' | 'replays'>) {
  const rows = await stores.runs.listRuns({ limit: 1000 });
  return Promise.all(
    rows.map(async (row) => ({
      row,
      events: await stores.runs.events(row.id),
      artifacts: await stores.runs.artifactBytes(row.id),
      replays: await replaysOf(stores, row.id),
    })),
  );
}


describe.each<StoreKind>(['sqlite', 'postgresql'])('run bundles on %s', (kind) => {
  it('export -> import into another store folds to the same view, every artifact hash equal', async () => {
    const h = await harness(kind);
    const { id, bundle } = await exported(h);
    // Through JSON, as a file carries it.
    const text = JSON.stringify(bundle);
    expect(RunBundle.parse(JSON.parse(text)).format).toBe(BUNDLE_FORMAT);
    expect(bundle.source).toMatchObject({ runId: id, store: kind });
    expect(bundle.artifacts.length).toBeGreaterThan(3);

    const target = await otherStore(kind);
    const outcome = await importBundle(target.runs, text);
    expect(outcome).toMatchObject({ id, originalId: id, renamed: false });

    const original = foldRun(await h.runtime.store.events(id));
    const imported = foldRun(await target.runs.events(id));
    expect(imported).toEqual(original);
    expect(imported.humanVerdicts.history.map((v) => [v.by, v.claim, v.verdict])).toEqual([
      ['ana', 1, 'incorrect'],
      ['ana', 1, 'correct'],
      ['local', null, 'unsure'],
    ]);
    expect(toResult(id, imported)).toEqual(toResult(id, original));
    const hashes = async (stores: { runs: Stores['runs'] }) =>
      (await stores.runs.artifactBytes(id)).map((a) => ({ name: a.name, mediaType: a.mediaType, sha256: a.sha256, bytes: a.buffer.length }));
    expect(await hashes(target)).toEqual(await hashes({ runs: h.runtime.store }));

    // The replays travel with the run: the same records under fresh ids, the same artifact hashes.
    const sourceReplays = await replaysOf({ runs: h.runtime.store, replays: h.runtime.replays }, id);
    expect(sourceReplays.map((r) => [r.record.call, r.record.attempt, r.record.status])).toEqual([
      ['planner#1', 1, 'ok'],
      ['synthesizer#2', 1, 'ok'],
      ['synthesizer#2', 2, 'failed'],
    ]);
    expect(bundle.replays?.map((r) => r.record)).toEqual(sourceReplays.map((r) => r.record));
    const importedReplays = await replaysOf(target, id);
    expect(importedReplays.map(unplacedReplay)).toEqual(sourceReplays.map(unplacedReplay));
    expect(importedReplays.map((r) => r.record.runId)).toEqual([id, id, id]);
    expect(importedReplays[0]!.artifacts.map((a) => a.name)).toEqual(['request.json', 'response.txt', 'thinking.txt']);
    const sourceIds = new Set(sourceReplays.map((r) => r.record.id));
    expect(importedReplays.filter((r) => sourceIds.has(r.record.id))).toEqual([]);

    const row = await target.runs.getRun(id);
    const source = await h.runtime.store.getRun(id);
    expect(row).toMatchObject({
      status: 'completed',
      importedFrom: `run ${id} on ${os.hostname()}`,
      lastSeq: source!.lastSeq,
      promptTokens: source!.promptTokens,
      humanVerdicts: 3,
    });
    expect(row!.importedAt).toEqual(expect.any(Number));
    expect(source!.importedFrom).toBeNull();
  });

  it('imports under a new id when the id is taken, and says so', async () => {
    const h = await harness(kind);
    const { id, bundle } = await exported(h);
    const outcome = await importBundle(h.runtime.store, JSON.stringify(bundle));
    expect(outcome.renamed).toBe(true);
    expect(outcome.id).not.toBe(id);
    expect(outcome.message).toContain(`a run ${id} already exists`);
    expect(foldRun(await h.runtime.store.events(outcome.id))).toEqual(foldRun(await h.runtime.store.events(id)));
    // Its calls' replay panels list what the original's do, and exporting it again carries them on.
    for (const call of ['planner#1', 'synthesizer#2']) {
      const [original, imported] = await Promise.all([h.runtime.replayer.list(id, call), h.runtime.replayer.list(outcome.id, call)]);
      expect(imported.original).toEqual({ ...original.original, runId: outcome.id });
      expect(imported.replays.map(unplaced)).toEqual(original.replays.map(unplaced));
      expect(imported.replays).toHaveLength(call === 'planner#1' ? 1 : 2);
    }
    const again = await exportFrom(h, outcome.id);
    expect(again.replays?.map((r) => r.record.runId)).toEqual([outcome.id, outcome.id, outcome.id]);
    expect(again.replays?.map(unplacedReplay)).toEqual(bundle.replays?.map(unplacedReplay));
    // Its workspace is the bundle's text, never a directory to read: no fork of it starts.
    const before = (await h.runtime.store.listRuns({ limit: 10 })).length;
    await expect(h.runtime.registry.start({ fork: { run: outcome.id, stage: 'answer' } })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await h.runtime.store.listRuns({ limit: 10 })).toHaveLength(before);
  });

  it('imports the same bundle twice at once: one keeps the id, the other is renamed, neither fails', async () => {
    const h = await harness(kind);
    const { id, bundle } = await exported(h);
    const target = await otherStore(kind);
    const text = JSON.stringify(bundle);
    const outcomes = await Promise.all([importBundle(target.runs, text), importBundle(target.runs, text)]);
    expect(outcomes.map((o) => o.renamed).sort()).toEqual([false, true]);
    expect(new Set(outcomes.map((o) => o.id)).size).toBe(2);
    for (const o of outcomes) expect(foldRun(await target.runs.events(o.id))).toEqual(foldRun(await h.runtime.store.events(id)));
  });

  it('refuses each bad bundle with its code and leaves the store as it was', async () => {
    const h = await harness(kind);
    const { bundle } = await exported(h);
    const target = await otherStore(kind);
    // Another run already there, with its replays, for a refused import to leave as it was.
    const kept = { ...bundle, result: { ...bundle.result, id: 'kept' }, replays: bundle.replays!.map((r) => ({ ...r, record: { ...r.record, runId: 'kept' } })) };
    expect((await importBundle(target.runs, JSON.stringify(kept))).id).toBe('kept');
    expect(await replaysOf(target, 'kept')).toHaveLength(3);
    const before = await snapshot(target);
    const tampered = (change: (b: RunBundle) => unknown) => JSON.stringify(change(structuredClone(bundle)));
    const observation = bundle.artifacts.findIndex((a) => a.name.startsWith('observation/'));
    const answerAt = bundle.events.findIndex((e) => e.type === 'answer_ready');

    const cases: [string, string, RequestErrorCode][] = [
      ['not JSON', '{"format": "planscope-run-bundle", ', 'bundle_invalid'],
      ['another format', tampered((b) => ({ ...b, format: 'something-else' })), 'bundle_invalid'],
      ['a later version', tampered((b) => ({ ...b, version: 2 })), 'bundle_version_unsupported'],
      ['an artifact changed', tampered((b) => ((b.artifacts[observation]!.content += ' '), b)), 'bundle_hash_mismatch'],
      ['an artifact said to be longer', tampered((b) => ((b.artifacts[observation]!.bytes += 1), b)), 'bundle_hash_mismatch'],
      ['an event that does not parse', tampered((b) => ((b.events[1] = { ...b.events[1]!, type: 'run_exploded' } as never), b)), 'bundle_events_invalid'],
      ['an answer changed (does not fold to the Result)', tampered((b) => ((b.events[answerAt] = { ...b.events[answerAt]!, text: 'Something else.' } as never), b)), 'bundle_events_invalid'],
      ['an event missing', tampered((b) => (b.events.splice(2, 1), b)), 'bundle_events_invalid'],
      ['an unfinished run', tampered((b) => ({ ...b, events: b.events.slice(0, b.events.findIndex((e) => e.type === 'run_finished')) })), 'bundle_events_invalid'],
      ['an artifact missing', tampered((b) => (b.artifacts.splice(observation, 1), b)), 'bundle_events_invalid'],
      ['a replay artifact changed', tampered((b) => ((b.replays![0]!.artifacts[1]!.content += ' '), b)), 'bundle_hash_mismatch'],
      [
        'a replay artifact other than its record says',
        tampered((b) => {
          const a = b.replays![0]!.artifacts[1]!;
          a.content = 'another reply';
          a.bytes = Buffer.byteLength(a.content);
          a.sha256 = createHash('sha256').update(a.content).digest('hex');
          return b;
        }),
        'bundle_hash_mismatch',
      ],
      ['a replay artifact missing', tampered((b) => (b.replays![0]!.artifacts.pop(), b)), 'bundle_invalid'],
      ['a replay of a call the run does not have', tampered((b) => ((b.replays![1]!.record.call = 'synthesizer#9'), b)), 'bundle_invalid'],
      ['a replay of another role', tampered((b) => ((b.replays![1]!.record.label = 'planner'), b)), 'bundle_invalid'],
      ['a replay of another run', tampered((b) => ((b.replays![1]!.record.runId = 'elsewhere'), b)), 'bundle_invalid'],
      ['a replay record that is not one', tampered((b) => ((b.replays![1]!.record.status = 'exploded' as never), b)), 'bundle_invalid'],
    ];
    for (const [what, text, code] of cases) {
      expect(await refusalCode(importBundle(target.runs, text)), what).toBe(code);
    }
    expect(await snapshot(target)).toEqual(before);
  });

  it('imports a bundle made before replays travelled (no `replays`) with none', async () => {
    const h = await harness(kind);
    const { id, bundle } = await exported(h);
    const target = await otherStore(kind);
    const { replays: _dropped, ...older } = bundle;
    expect((await importBundle(target.runs, JSON.stringify(older))).id).toBe(id);
    expect(foldRun(await target.runs.events(id))).toEqual(foldRun(await h.runtime.store.events(id)));
    expect(await replaysOf(target, id)).toEqual([]);
  });

  it('stores the run and its replays in one transaction: a replay the store refuses leaves nothing of the run', async () => {
    const h = await harness(kind);
    const { id } = await exported(h);
    const source = { runs: h.runtime.store, replays: h.runtime.replays };
    const row = (await h.runtime.store.getRun(id))!;
    const replays = (await replaysOf(source, id)).map((r) => r.record);
    const artifacts = await Promise.all(replays.map((r) => h.runtime.replays.artifactBytes(r.id)));
    const before = await snapshot(source);
    // The second replay keeps an id the store already has: its insert fails after the run's rows went in.
    const clashing = replays.map((record, i) => ({ record: { ...record, runId: 'copy', id: i === 1 ? record.id : `fresh-${i}` }, artifacts: artifacts[i]! }));
    await expect(h.runtime.store.importRun({ ...row, id: 'copy' }, await h.runtime.store.events(id), await h.runtime.store.artifactBytes(id), clashing)).rejects.toThrow();
    expect(await h.runtime.store.getRun('copy')).toBeNull();
    expect(await snapshot(source)).toEqual(before);
  });
});

describe('the CLI: export <run> and import <file>', () => {
  it('writes the bundle to stdout, imports it into another data directory, and refuses one over PLANSCOPE_MAX_BUNDLE_BYTES with its code', async () => {
    const h = await harness('sqlite');
    const { id } = await h.run(TASK);
    const env = { PLANSCOPE_DATA_DIR: h.dataDir, OLLAMA_HOST: h.fake.url, PLANSCOPE_WORKSPACE: h.workspace };
    await h.runtime.close();
    const out = await runCli(TSX_ENTRY, ['export', id], { cwd: APP_ROOT, env });
    expect(out.code, out.stderr).toBe(0);
    const file = path.join(h.dataDir, 'run.bundle.json');
    fs.writeFileSync(file, out.stdout);
    expect(RunBundle.parse(JSON.parse(out.stdout)).result.id).toBe(id);

    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-import-'));
    cleanups.push(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
    const importEnv = { ...env, PLANSCOPE_DATA_DIR: elsewhere };
    const tooLarge = await runCli(TSX_ENTRY, ['import', file], { cwd: APP_ROOT, env: { ...importEnv, PLANSCOPE_MAX_BUNDLE_BYTES: '1024' } });
    expect(tooLarge.code).toBe(1);
    expect(tooLarge.stderr).toContain('bundle_too_large');
    const stores = openStores({ dataDir: elsewhere, database: null } satisfies Pick<Config, 'dataDir' | 'database'>);
    expect(await stores.runs.listRuns({ limit: 10 })).toEqual([]);
    await stores.close();

    const done = await runCli(TSX_ENTRY, ['import', file], { cwd: APP_ROOT, env: importEnv });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.trim()).toBe(id);
    const again = openStores({ dataDir: elsewhere, database: null });
    cleanups.push(() => again.close());
    expect((await again.runs.getRun(id))?.importedFrom).toBe(`run ${id} on ${os.hostname()}`);
  });
});
