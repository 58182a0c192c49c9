import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_FORMAT, DEFAULT_BUNDLE_LIMITS, RunBundle, type BundleCheckSettings } from '../../lib/bundle';
import type { RequestErrorCode } from '../../lib/codes';
import { judgedClaimsOf } from '../../lib/agreement';
import { givenBy, verdictsOn } from '../../lib/human-verdict';
import { toResult, type RunResult } from '../../lib/result';
import { OFFLINE_MODEL } from '../../lib/run-request';
import type { ReplayRecord } from '../../lib/replay';
import { foldRun, type RunState } from '../../lib/run-state';
import type { Config } from '../../server/config';
import { exportRun } from '../../server/run-bundles/export';
import { RunBus } from '../../server/runs/bus';
import { HumanVerdictLog } from '../../server/runs/human-verdicts';
import { BundleCheckPool } from '../../server/run-bundles/check-pool';
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

/** One pool of bundle-check threads for the file, as a runtime has one. */
let pool: BundleCheckPool | null = null;
afterAll(() => pool?.close());
function checks(settings: Partial<BundleCheckSettings> = {}): BundleCheckPool {
  if (Object.keys(settings).length > 0) {
    const own = new BundleCheckPool(APP_ROOT, { ...DEFAULT_CHECKS, ...settings });
    cleanups.push(() => own.close());
    return own;
  }
  return (pool ??= new BundleCheckPool(APP_ROOT, DEFAULT_CHECKS));
}
const DEFAULT_CHECKS: BundleCheckSettings = { limits: DEFAULT_BUNDLE_LIMITS, threads: 1, queue: 64, timeoutMs: 60_000 };

/** An import as the API makes it, by `importer` (the token's name). */
const importInto = (target: { runs: Stores['runs'] } | { store: Stores['runs'] }, text: string, importer = 'importer') =>
  importBundle('runs' in target ? target.runs : target.store, checks(), text, importer);

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

/**
 * An imported run's fold as the bundle's author had it: without what the
 * import added (its `run_imported`, the marks on the bundle's verdicts and
 * decisions, the lineage kept as a claim).
 */
const unmark = <T extends { imported?: true }>({ imported: _mark, ...rest }: T) => rest;

function asBundled(view: RunState): RunState {
  return {
    ...view,
    imported: null,
    forkedFrom: view.imported?.claimedForkedFrom ?? view.forkedFrom,
    lastSeq: view.lastSeq - 1,
    humanVerdicts: { current: view.humanVerdicts.current.map(unmark), history: view.humanVerdicts.history.map(unmark), settled: view.humanVerdicts.settled.map(unmark) },
    rounds: view.rounds.map((r) => (r.approval?.decision ? { ...r, approval: { ...r.approval, decision: unmark(r.approval.decision) } } : r)),
  };
}

function asBundledResult({ imported, ...result }: RunResult): RunResult {
  return {
    ...result,
    forkedFrom: imported?.claimedForkedFrom ?? result.forkedFrom,
    humanVerdicts: { current: result.humanVerdicts.current.map(unmark), history: result.humanVerdicts.history.map(unmark) },
  };
}

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
    const outcome = await importInto(target, text);
    expect(outcome).toMatchObject({ id, originalId: id, renamed: false });

    const original = foldRun(await h.runtime.store.events(id));
    const importedEvents = await target.runs.events(id);
    // The bundle's log as it was, then the import's own event: who imported it, and the bundle's claims.
    expect(importedEvents.slice(0, -1)).toEqual(await h.runtime.store.events(id));
    expect(importedEvents.at(-1)).toMatchObject({ type: 'run_imported', seq: original.lastSeq + 1, by: 'importer', claimedId: id, from: `run ${id} on ${os.hostname()}, as the bundle says` });
    expect(asBundled(foldRun(importedEvents))).toEqual(original);
    const imported = foldRun(importedEvents);
    // Its verdicts are the bundle's claims: kept, marked imported, none a verdict of a person here.
    expect(imported.humanVerdicts.history.map((v) => [v.by, v.claim, v.verdict, v.imported])).toEqual([
      ['ana', 1, 'incorrect', true],
      ['ana', 1, 'correct', true],
      ['local', null, 'unsure', true],
    ]);
    expect(imported.imported).toMatchObject({ by: 'importer', claimedId: id, claimedForkedFrom: null });
    expect(asBundledResult(toResult(id, imported))).toEqual(toResult(id, original));
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
      importedFrom: `run ${id} on ${os.hostname()}, as the bundle says`,
      forkedFromRun: null,
      lastSeq: source!.lastSeq + 1,
      promptTokens: source!.promptTokens,
      // The bundle's three verdicts are not this planscope's people's.
      humanVerdicts: 0,
    });
    expect(row!.importedAt).toEqual(expect.any(Number));
    expect(source!.importedFrom).toBeNull();
  });

  it('imports under a new id when the id is taken, and says so', async () => {
    const h = await harness(kind);
    const { id, bundle } = await exported(h);
    const outcome = await importInto(h.runtime, JSON.stringify(bundle));
    expect(outcome.renamed).toBe(true);
    expect(outcome.id).not.toBe(id);
    expect(outcome.message).toContain(`a run ${id} already exists`);
    expect(asBundled(foldRun(await h.runtime.store.events(outcome.id)))).toEqual(foldRun(await h.runtime.store.events(id)));
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
    const outcomes = await Promise.all([importInto(target, text), importInto(target, text)]);
    expect(outcomes.map((o) => o.renamed).sort()).toEqual([false, true]);
    expect(new Set(outcomes.map((o) => o.id)).size).toBe(2);
    for (const o of outcomes) expect(asBundled(foldRun(await target.runs.events(o.id)))).toEqual(foldRun(await h.runtime.store.events(id)));
  });

  it('refuses each bad bundle with its code and leaves the store as it was', async () => {
    const h = await harness(kind);
    const { bundle } = await exported(h);
    const target = await otherStore(kind);
    // Another run already there, with its replays, for a refused import to leave as it was.
    const kept = { ...bundle, result: { ...bundle.result, id: 'kept' }, replays: bundle.replays!.map((r) => ({ ...r, record: { ...r.record, runId: 'kept' } })) };
    expect((await importInto(target, JSON.stringify(kept))).id).toBe('kept');
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
      expect(await refusalCode(importInto(target, text)), what).toBe(code);
    }
    expect(await snapshot(target)).toEqual(before);
  });

  it('imports a bundle made before replays travelled (no `replays`) with none', async () => {
    const h = await harness(kind);
    const { id, bundle } = await exported(h);
    const target = await otherStore(kind);
    const { replays: _dropped, ...older } = bundle;
    expect((await importInto(target, JSON.stringify(older))).id).toBe(id);
    expect(asBundled(foldRun(await target.runs.events(id)))).toEqual(foldRun(await h.runtime.store.events(id)));
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
    expect((await again.runs.getRun(id))?.importedFrom).toBe(`run ${id} on ${os.hostname()}, as the bundle says`);
    expect((await again.runs.events(id)).at(-1)).toMatchObject({ type: 'run_imported', by: 'local' });
  });
});

/** The bundle with its Result made again from its (tampered) events, so that only the check a case aims at can refuse it. */
function refolded(bundle: RunBundle): RunBundle {
  return { ...bundle, result: JSON.parse(JSON.stringify(toResult(bundle.result.id, foldRun(bundle.events)))) as RunBundle['result'] };
}

/** The bundle's run under another id, its replays with it. */
function withId(bundle: RunBundle, id: string): RunBundle {
  return { ...bundle, source: { ...bundle.source, runId: id }, result: { ...bundle.result, id }, replays: bundle.replays?.map((r) => ({ ...r, record: { ...r.record, runId: id } })) };
}

/** An artifact's text replaced, its size and hash stated anew: the bundle is consistent about it, whatever it holds. */
function rewritten(a: RunBundle['artifacts'][number], content: string): RunBundle['artifacts'][number] {
  return { ...a, encoding: 'utf8', content, bytes: Buffer.byteLength(content), sha256: createHash('sha256').update(content).digest('hex') };
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe.each<StoreKind>(['sqlite', 'postgresql'])('a bundle is untrusted input, on %s', (kind) => {
  it('keeps who judged what and the fork lineage as the bundle\'s claims, and who imported it as fact', async () => {
    const h = await harness(kind);
    const { id: local } = await h.run(TASK);
    const { id, bundle } = await exported(h);
    const target = await otherStore(kind);
    // The bundle says the run is a fork of a run that, here, is someone else's.
    const { id: here } = (await target.runs.listRuns({ limit: 1 }))[0] ?? { id: local };
    const forged = structuredClone(bundle);
    const created = forged.events[0]!;
    if (created.type !== 'run_created') throw new Error('no run_created first');
    created.forkedFrom = { run: here, round: 1, stage: 'answer' };
    const outcome = await importInto(target, JSON.stringify(refolded(forged)), 'bea');
    expect(outcome).toMatchObject({ id, by: 'bea', renamed: false });

    const row = (await target.runs.getRun(id))!;
    expect(row).toMatchObject({ forkedFromRun: null, forkedFromRound: null, humanVerdicts: 0 });
    expect(await target.runs.listRuns({ limit: 10, forkedFrom: here })).toEqual([]);
    const view = foldRun(await target.runs.events(id));
    expect(view.forkedFrom).toBeNull();
    expect(view.imported).toMatchObject({ by: 'bea', claimedId: id, claimedForkedFrom: { run: here, round: 1, stage: 'answer' } });
    expect(toResult(id, view).imported).toMatchObject({ by: 'bea', claimedForkedFrom: { run: here } });
    // `local` in the bundle is no local person: it counts nowhere a person of here does, and says whose claim it is.
    expect(view.humanVerdicts.current.every((v) => v.imported)).toBe(true);
    expect(view.humanVerdicts.current.map(givenBy)).toContain('claimed by local (imported)');
    expect(judgedClaimsOf(id, view)).toEqual([]);

    // A person here judging the same claim adds their verdict beside the claim; neither replaces the other.
    await new HumanVerdictLog(target.runs, new RunBus()).record(id, { claim: 1, verdict: 'incorrect' }, 'ana');
    const judged = foldRun(await target.runs.events(id));
    expect(verdictsOn(judged.humanVerdicts, 1).map((v) => [v.by, v.verdict, v.imported ?? false])).toEqual([
      ['ana', 'correct', true],
      ['ana', 'incorrect', false],
    ]);
    expect(judgedClaimsOf(id, judged).map((c) => [c.human, c.settledBy])).toEqual([['incorrect', null]]);
    expect((await target.runs.getRun(id))!.humanVerdicts).toBe(1);

    // Exported again and imported elsewhere: every verdict so far is a claim there, the lineage still a claim.
    const again = await exportRun({ runs: target.runs, replays: target.replays }, { database: null }, id);
    const third = await otherStore(kind);
    await importInto(third, JSON.stringify(again), 'cai');
    const there = foldRun(await third.runs.events(id));
    expect(there.humanVerdicts.history.every((v) => v.imported)).toBe(true);
    expect(there.imported).toMatchObject({ by: 'cai', claimedForkedFrom: { run: here } });
  });

  it('takes a run id only if it is one this planscope makes: a bad one gets a fresh id (kept as a claim) or is refused', async () => {
    const h = await harness(kind);
    const { bundle } = await exported(h);
    const target = await otherStore(kind);
    const renamedCases = ['<img src=x onerror=alert(1)>', 'a'.repeat(65), '../../etc/passwd', '-rf', 'run id with spaces'];
    for (const claimed of renamedCases) {
      const outcome = await importInto(target, JSON.stringify(withId(bundle, claimed)));
      expect(outcome, claimed).toMatchObject({ originalId: claimed, renamed: true });
      expect(outcome.id).toMatch(/^[a-z0-9]+-[0-9a-f]{10}$/);
      expect(outcome.message).toContain('not one this planscope takes');
      expect(foldRun(await target.runs.events(outcome.id)).imported?.claimedId).toBe(claimed);
      expect((await replaysOf(target, outcome.id)).map((r) => r.record.runId)).toEqual([outcome.id, outcome.id, outcome.id]);
    }
    const before = await snapshot(target);
    const refused: [string, string][] = [
      ['100 KB', 'x'.repeat(100_000)],
      ['a terminal escape', 'run\u001b]0;owned\u0007'],
      ['a newline', 'run\nFAKE LOG LINE'],
      ['empty', ''],
    ];
    for (const [what, claimed] of refused) {
      expect(await refusalCode(importInto(target, JSON.stringify(withId(bundle, claimed)))), what).toBe('bundle_invalid');
    }
    expect(await refusalCode(importInto(target, JSON.stringify({ ...bundle, source: { ...bundle.source, host: 'h'.repeat(100_000) } })))).toBe('bundle_invalid');
    expect(await snapshot(target)).toEqual(before);
  });

  it('refuses, with a 4xx code, each bundle that once made a 500, and leaves the store as it was', async () => {
    const h = await harness(kind);
    const { bundle } = await exported(h);
    const { id: baselineId } = await h.run(TASK, { model: OFFLINE_MODEL });
    const baseline = await exportFrom(h, baselineId);
    const target = await otherStore(kind);
    const before = await snapshot(target);
    const tampered = (from: RunBundle, change: (b: RunBundle) => RunBundle | void) => {
      const b = structuredClone(from);
      return JSON.stringify(change(b) ?? b);
    };
    const inputAt = baseline.artifacts.findIndex((a) => a.name.endsWith('.input.json'));
    expect(inputAt).toBeGreaterThan(-1);
    const hostileInput = (content: string) => tampered(baseline, (b) => void (b.artifacts[inputAt] = rewritten(b.artifacts[inputAt]!, content)));
    const plannedAt = bundle.events.findIndex((e) => e.type === 'plan_proposed');
    const observation = bundle.artifacts.findIndex((a) => a.name.startsWith('observation/'));
    const bundleText = JSON.stringify(bundle);
    // Built as text: a value this deep is past what the test's own JSON.stringify can walk.
    const deepArgs = (depth: number) =>
      tampered(bundle, (b) => void ((b.events[plannedAt] as { steps: { args?: unknown }[] }).steps[0]!.args = { a: 'DEEP' })).replaceAll('"DEEP"', nested(depth));

    const cases: [string, string, RequestErrorCode][] = [
      ['nested 20,000 deep beside the bundle', `${bundleText.slice(0, -1)},"deep":${nested(20_000)}}`, 'bundle_invalid'],
      ['nested 20,000 deep in a step\'s arguments', deepArgs(20_000), 'bundle_invalid'],
      ['nested 65 deep in a step\'s arguments', deepArgs(65), 'bundle_invalid'],
      ['a baseline input of the wrong shape', hostileInput('{"kind":"plan","files":"not a list"}'), 'bundle_invalid'],
      ['a baseline input of an unknown stage', hostileInput('{"kind":"exfiltrate"}'), 'bundle_invalid'],
      ['a baseline input nested 20,000 deep', hostileInput(nested(20_000)), 'bundle_invalid'],
      ['a baseline input that is not JSON', hostileInput('{"kind":'), 'bundle_invalid'],
      ['an artifact name of 10,000 characters', tampered(bundle, (b) => void (b.artifacts[0]!.name = 'n'.repeat(10_000))), 'bundle_invalid'],
      ['an artifact name with a terminal escape', tampered(bundle, (b) => void (b.artifacts[0]!.name += '\u001b[2J')), 'bundle_invalid'],
      ['an LLM call named with 5,000 characters', tampered(bundle, (b) => refolded({ ...b, events: b.events.map((e) => (e.type === 'llm_call_started' && e.call === 'planner#1' ? { ...e, call: 'p'.repeat(5000) } : e)) })), 'bundle_events_invalid'],
      ['a NUL in the task', tampered(bundle, (b) => refolded({ ...b, events: b.events.map((e) => (e.type === 'run_created' ? { ...e, task: 'a\u0000b' } : e)) })), 'bundle_events_invalid'],
      ['a string where an artifact\'s size goes', tampered(bundle, (b) => void ((b.artifacts[0] as { bytes: unknown }).bytes = '12')), 'bundle_invalid'],
      ['a string where an observation\'s size goes, deep in an event', tampered(bundle, (b) => void ((b.events.find((e) => e.type === 'step_finished') as { observation: { bytes: unknown } }).observation.bytes = 'many')), 'bundle_events_invalid'],
      ['a replay record\'s artifact size of the wrong type', tampered(bundle, (b) => void ((b.replays![0]!.record.artifacts[0] as { bytes: unknown }).bytes = null)), 'bundle_invalid'],
      ['a sequence number twice', tampered(bundle, (b) => void (b.events[3]!.seq = b.events[2]!.seq)), 'bundle_events_invalid'],
      ['events out of order', tampered(bundle, (b) => void ([b.events[2], b.events[3]] = [b.events[3]!, b.events[2]!])), 'bundle_events_invalid'],
      ['a second run_created', tampered(bundle, (b) => refolded({ ...b, events: [...b.events.slice(0, 2), { ...b.events[0]!, seq: 3 }, ...b.events.slice(2).map((e) => ({ ...e, seq: e.seq + 1 }))] })), 'bundle_events_invalid'],
      ['an observation whose artifact hashes right but is not what its event says', tampered(bundle, (b) => void (b.artifacts[observation] = rewritten(b.artifacts[observation]!, 'other text'))), 'bundle_hash_mismatch'],
    ];
    for (const [what, text, code] of cases) {
      expect(await refusalCode(importInto(target, text)), what).toBe(code);
    }
    expect(await snapshot(target)).toEqual(before);
    // The baseline's own bundle imports.
    expect((await importInto(target, JSON.stringify(baseline))).id).toBe(baselineId);

    // A hostile input already stored (as by a planscope before this check) is refused by the replay, not a 500.
    const row = (await h.runtime.store.getRun(baselineId))!;
    const stored = await h.runtime.store.artifactBytes(baselineId);
    const inputName = baseline.artifacts[inputAt]!.name;
    const hostile = Buffer.from('{"kind":"plan","files":"not a list"}');
    const artifacts = stored.map((a) => (a.name === inputName ? { ...a, buffer: hostile, sha256: createHash('sha256').update(hostile).digest('hex') } : a));
    await h.runtime.store.importRun({ ...row, id: 'hostile-input' }, await h.runtime.store.events(baselineId), artifacts, []);
    const call = inputName.replace(/\.input\.json$/, '').split('/').at(-1)!;
    expect(await refusalCode(h.runtime.replayer.replay('hostile-input', call, { model: OFFLINE_MODEL }, new AbortController().signal))).toBe('call_not_replayable');
  });

  it('bounds what one bundle holds, and how many are checked and wait at once', async () => {
    const h = await harness(kind);
    const { bundle } = await exported(h);
    const target = await otherStore(kind);
    const text = JSON.stringify(bundle);
    const calls = bundle.events.filter((e) => e.type === 'llm_call_started').length;
    const artifacts = bundle.artifacts.length + bundle.replays!.reduce((n, r) => n + r.artifacts.length, 0);
    const over: [string, Partial<BundleCheckSettings['limits']>][] = [
      ['events', { maxEvents: bundle.events.length - 1 }],
      ['LLM calls', { maxCalls: calls - 1 }],
      ['artifacts', { maxArtifacts: artifacts - 1 }],
      ['replays', { maxReplays: bundle.replays!.length - 1 }],
    ];
    for (const [what, limit] of over) {
      const bounded = checks({ limits: { ...DEFAULT_BUNDLE_LIMITS, ...limit } });
      const refusal = await importBundle(target.runs, bounded, text, 'importer').catch((error: unknown) => error as { code: string; message: string });
      expect(refusal, what).toMatchObject({ code: 'bundle_limit_exceeded', message: expect.stringContaining(what) });
    }
    // At the bounds exactly, it imports.
    const exact = checks({ limits: { maxEvents: bundle.events.length, maxCalls: calls, maxArtifacts: artifacts, maxReplays: bundle.replays!.length } });
    expect((await importBundle(target.runs, exact, text, 'importer')).renamed).toBe(false);

    // One thread, no queue: a second import while the first is checked is told to come back, not kept waiting.
    const single = checks({ threads: 1, queue: 0 });
    const [first, second] = await Promise.allSettled([importBundle(target.runs, single, text, 'a'), importBundle(target.runs, single, text, 'b')]);
    expect(first.status).toBe('fulfilled');
    expect(second.status === 'rejected' && (second.reason as { code: string }).code).toBe('bundle_import_busy');
    // A queue of one: the second waits its turn and imports.
    const queued = checks({ threads: 1, queue: 1 });
    const both = await Promise.all([importBundle(target.runs, queued, text, 'a'), importBundle(target.runs, queued, text, 'b')]);
    expect(both.every((o) => o.renamed)).toBe(true);
    // Checks that outrun their bound end the thread and refuse the bundle.
    expect(await refusalCode(importBundle(target.runs, checks({ timeoutMs: 1 }), text, 'a'))).toBe('bundle_limit_exceeded');
  });
});

describe('a large bundle is checked off the thread that serves requests', () => {
  it('lets the main thread run hundreds of turns while a bundle of thousands of events is checked', async () => {
    const h = await harness('sqlite');
    const { bundle } = await exported(h);
    // Thousands of verdicts after run_finished: a log near the default bound, legitimately shaped.
    const last = bundle.events.at(-1)!;
    const verdicts = Array.from({ length: DEFAULT_BUNDLE_LIMITS.maxEvents - bundle.events.length }, (_, i) => ({
      seq: last.seq + i + 1,
      at: last.at + i,
      type: 'human_verdict' as const,
      claim: null,
      verdict: 'unsure' as const,
      note: 'n'.repeat(200),
      by: `person-${i}`,
    }));
    const large = refolded({ ...bundle, events: [...bundle.events, ...verdicts] });
    const text = JSON.stringify(large);
    const target = await otherStore('sqlite');
    // Warm the thread, so that what is counted below is the check, not the thread's start.
    await importInto(target, JSON.stringify(bundle));
    let turns = 0;
    let importing = true;
    const tick = () => {
      turns++;
      if (importing) setImmediate(tick);
    };
    setImmediate(tick);
    const served: number[] = [];
    const importing$ = importInto(target, text).finally(() => (importing = false));
    // Requests made meanwhile are served before the import ends.
    const reads = Promise.all(Array.from({ length: 5 }, async (_, i) => (await target.runs.listRuns({ limit: 5 }), served.push(i))));
    const outcome = await importing$;
    await reads;
    expect(outcome.renamed).toBe(true);
    expect(served).toHaveLength(5);
    // On the main thread the whole check is one turn; on its own thread the main one keeps turning.
    expect(turns).toBeGreaterThan(100);
    expect(foldRun(await target.runs.events(outcome.id)).humanVerdicts.history).toHaveLength(verdicts.length + 3);
  });
});
