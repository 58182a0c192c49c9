import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvalItem, EvalSettings, EvalTask } from '../../lib/eval';
import type { ReplayRecord } from '../../lib/replay';
import { RunEvent, type NewRunEvent } from '../../lib/events';
import { RunRow, runProgressOf, type NewRunInput } from '../../lib/run-row';
import { applyEvent, emptyRun, foldRun, type RunState } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { runLimits } from '../../server/runs/run-limits';
import { RunRecorder } from '../../server/runs/recorder';
import { prepareArtifact, type PendingArtifact } from '../../server/store/artifact';
import type { EvalStore } from '../../server/store/eval-store';
import type { ReplayStore } from '../../server/store/replay-store';
import type { ListRunsOptions, RunStore } from '../../server/store/run-store';
import type { SuiteStore } from '../../server/store/suite-store';
import { APP_ROOT } from './harness';

/**
 * What every store must do, as tests any implementation runs by handing
 * `describeStoreContract` a way to open a fresh, empty store of its kind.
 * Nothing here knows which database is behind the interfaces, nor whether
 * its commits happen at once or later.
 */
export interface StoreFixture {
  runs: RunStore;
  evals: EvalStore;
  replays: ReplayStore;
  suites: SuiteStore;
  /** The same database through another connection, as another process would read it. */
  reopen(): Promise<{ runs: RunStore; evals: EvalStore; replays: ReplayStore; close(): Promise<void> }>;
  /** Makes the store fail to update `runId`'s row to `lastSeq` (as a full disk would), until the returned undo is called. */
  failRowUpdate(runId: string, lastSeq: number): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const LIMITS = runLimits(loadConfig({}, APP_ROOT), { profile: 'file' });
const TASK = 'How is the model endpoint configured?';
const CONFIG_TEXT = "export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';\n";
const CONFIG_SHA = createHash('sha256').update(CONFIG_TEXT).digest('hex');

function newRun(id: string, overrides: Partial<NewRunInput> = {}): NewRunInput {
  return {
    id,
    createdAt: 1_700_000_000_000,
    task: TASK,
    model: 'qwen3:8b',
    baseline: false,
    workspace: '/ws',
    ownerPid: 4242,
    ownerHost: 'box-a',
    ownerStart: 'start-a',
    ...overrides,
  };
}

/** A whole run as the engine records it: two model calls with token counts, one read, an answer. */
function wholeRun(task = TASK): NewRunEvent[] {
  const step = { purpose: 'Read the configuration', path: 'src/config.ts' };
  const call = (name: string, label: 'planner' | 'synthesizer', round: number | null) =>
    ({ type: 'llm_call_started', call: name, label, round, model: 'qwen3:8b', host: null, promptChars: 12, promptArtifact: `${name}.prompt.txt` }) as const;
  const finished = (name: string, promptTokens: number, evalTokens: number) =>
    ({
      type: 'llm_call_finished',
      call: name,
      ok: true,
      responseChars: 40,
      thinkingChars: 0,
      promptTokens,
      evalTokens,
      durationMs: 5,
      loadDurationNs: null,
      doneReason: 'stop',
      responseArtifact: `${name}.response.txt`,
      thinkingArtifact: null,
      error: null,
    }) as const;
  return [
    { type: 'run_created', task, model: 'qwen3:8b', baseline: false, host: null, workspace: '/ws', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
    { type: 'run_started' },
    call('planner#1', 'planner', 1),
    finished('planner#1', 120, 30),
    { type: 'plan_proposed', round: 1, call: 'planner#1', steps: [step] },
    { type: 'plan_accepted', round: 1, steps: [step] },
    { type: 'step_started', round: 1, index: 0, path: step.path },
    {
      type: 'step_finished',
      round: 1,
      index: 0,
      path: step.path,
      durationMs: 1,
      observation: { path: step.path, sha256: CONFIG_SHA, bytes: CONFIG_TEXT.length, lines: 1, mtimeMs: 1, artifact: 'observation/src/config.ts' },
      replacedSha256: null,
    },
    call('synthesizer#2', 'synthesizer', null),
    finished('synthesizer#2', 300, 45),
    { type: 'answer_ready', call: 'synthesizer#2', text: 'From OLLAMA_HOST [src/config.ts:L1]' },
    { type: 'run_finished', status: 'completed', error: null },
  ];
}

/** Events with their sequence numbers and times, as the store gives them back (schema defaults filled in). */
function stamped(events: readonly NewRunEvent[], firstSeq = 1): RunEvent[] {
  return events.map((e, i) => RunEvent.parse({ ...e, seq: firstSeq + i, at: 1_700_000_000_000 + firstSeq + i }));
}

/** Appends `events` one by one straight to the store, each with the fold it leads to; returns that fold. */
async function appendAll(store: RunStore, runId: string, events: readonly RunEvent[], from: RunState = emptyRun): Promise<RunState> {
  let state = from;
  for (const event of events) {
    state = applyEvent(state, event);
    await store.append(runId, event, state);
  }
  return state;
}

/** What an append came to: null once committed, else why not (a store that threw at once counts too). */
async function appendOutcome(append: () => Promise<void>): Promise<Error | null> {
  try {
    await append();
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

const ITEM: EvalItem = {
  taskId: 'states-host',
  category: 'lookup',
  model: 'offline',
  baseline: true,
  strategy: 'plan-execute',
  repeat: 1,
  runId: 'r1',
  status: 'completed',
  errorCode: null,
  groundingScore: 1,
  rounds: 1,
  llmCalls: 2,
  promptTokens: 0,
  evalTokens: 0,
  wallMs: 12,
  success: true,
  missingFacts: [],
  forbiddenFacts: [],
  deniedReads: [],
  readRecall: 1,
};
const SETTINGS: EvalSettings = { suitePath: '/suite.json', models: ['offline'], strategies: ['plan-execute'], repeat: 1 };

/** A replay of the whole run's synthesizer call, at a lower temperature, with its Checker verdicts. */
function replayOf(runId: string, id: string, attempt: number, createdAt = 1_700_000_100_000): ReplayRecord {
  const content = '{"claims":[]}';
  return {
    id,
    runId,
    call: 'synthesizer#2',
    label: 'synthesizer',
    createdAt,
    batch: `batch-${createdAt}`,
    attempt,
    baseline: false,
    request: {
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 'Answer only from the observations.' },
        { role: 'user', content: TASK },
      ],
      options: { temperature: 0, numPredict: 1600, numCtx: 8192, think: false },
      format: true,
    },
    reply: { content, thinking: 'hmm', doneReason: 'stop', promptTokens: 300, evalTokens: 12, durationMs: 8, loadDurationNs: null },
    judgement: { kind: 'answer', validated: true, error: null, check: { claims: [], supported: 0, total: 0, flagged: 0, groundingScore: 0 } },
    status: 'ok',
    error: null,
    artifacts: [{ name: 'response.txt', mediaType: 'text/plain', bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') }],
  };
}

export function describeStoreContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`${name}: the store contract`, () => {
    let fixture: StoreFixture;
    let runs: RunStore;
    let evals: EvalStore;
    let replays: ReplayStore;
    const cleanups: (() => Promise<void>)[] = [];
    beforeEach(async () => {
      fixture = await open();
      ({ runs, evals, replays } = fixture);
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      await fixture.close();
    });

    describe('runs and their events', () => {
      it('creates a run queued with nothing folded yet, and finds it by id', async () => {
        await runs.createRun(newRun('r1'));
        expect(await runs.getRun('r1')).toEqual({
          ...newRun('r1'),
          strategy: 'plan-execute',
          profile: 'file',
          importedFrom: null,
          importedAt: null,
          status: 'queued',
          attempts: 0,
          finishedAt: null,
          promptTokens: 0,
          evalTokens: 0,
          errorCode: null,
          lastSeq: 0,
          humanVerdicts: 0,
          humanReviewers: [],
          forkedFromRun: null,
          forkedFromRound: null,
          evalId: null,
          waitingReason: null,
          waitingMessage: null,
        });
        await runs.createRun(newRun('r2', { strategy: 'react', profile: 'general', baseline: true, model: 'offline' }));
        expect(await runs.getRun('r2')).toMatchObject({ strategy: 'react', profile: 'general', baseline: true, model: 'offline' });
        // An owner recorded by pid alone, as before hosts and start ids were.
        const { ownerHost: _host, ownerStart: _start, ...pidOnly } = newRun('r3');
        await runs.createRun(pidOnly);
        expect(await runs.getRun('r3')).toMatchObject({ ownerPid: 4242, ownerHost: null, ownerStart: null });
        expect(await runs.getRun('missing')).toBeNull();
        expect(await runs.events('r1')).toEqual([]);
      });

      it('commits a run\'s row with the events appended in the same turn, and none of them when the row is refused', async () => {
        const [created, started] = stamped(wholeRun());
        const afterCreated = applyEvent(emptyRun, created!);
        const afterStarted = applyEvent(afterCreated, started!);
        // Not awaited in between: the way a run is created, its row and first events in one batch.
        await Promise.all([runs.createRun(newRun('r1')), runs.append('r1', created!, afterCreated), runs.append('r1', started!, afterStarted)]);
        expect(await runs.events('r1')).toEqual([created, started]);
        expect(await runs.getRun('r1')).toMatchObject({ ...newRun('r1'), ...runProgressOf(afterStarted), lastSeq: 2 });

        // An id already stored: the row is refused, and so is every event made with it.
        const again = appendOutcome(() => runs.createRun(newRun('r1', { task: 'another task' })));
        const imposter = RunEvent.parse({ ...created!, seq: 3 });
        const refused = appendOutcome(() => runs.append('r1', imposter, applyEvent(afterStarted, imposter)));
        expect(await again).not.toBeNull();
        expect(await refused).not.toBeNull();
        expect(await runs.events('r1')).toEqual([created, started]);
        expect(await runs.getRun('r1')).toMatchObject({ task: newRun('r1').task, lastSeq: 2 });
      });

      it('gives the events back in order, from a sequence number on, at most a limit', async () => {
        await runs.createRun(newRun('r1'));
        const events = stamped(wholeRun());
        await appendAll(runs, 'r1', events);
        expect(await runs.events('r1')).toEqual(events);
        expect(await runs.events('r1', 9)).toEqual(events.slice(9));
        expect(await runs.events('r1', 2, 3)).toEqual(events.slice(2, 5));
        expect(await runs.events('r1', events.length)).toEqual([]);
        expect(await runs.events('other')).toEqual([]);
      });

      it('keeps the row the fold of the events committed: status, rounds, tokens, end, error, last sequence number', async () => {
        await runs.createRun(newRun('r1'));
        const events = stamped(wholeRun());
        const halfway = await appendAll(runs, 'r1', events.slice(0, 4));
        expect(await runs.getRun('r1')).toMatchObject({ ...runProgressOf(halfway), status: 'running', promptTokens: 120, evalTokens: 30, lastSeq: 4, finishedAt: null });
        const folded = await appendAll(runs, 'r1', events.slice(4), halfway);
        expect(folded).toEqual(foldRun(events));
        const row = await runs.getRun('r1');
        expect(row).toMatchObject(runProgressOf(folded));
        expect(row).toMatchObject({ status: 'completed', attempts: 1, promptTokens: 420, evalTokens: 75, errorCode: null, lastSeq: events.length, finishedAt: events.at(-1)!.at });

        await runs.createRun(newRun('r2'));
        const failed = stamped([wholeRun()[0]!, { type: 'run_finished', status: 'failed', error: { code: 'max_rounds_exceeded', message: 'No plan.' } }]);
        await appendAll(runs, 'r2', failed);
        expect(await runs.getRun('r2')).toMatchObject({ status: 'failed', errorCode: 'max_rounds_exceeded', lastSeq: 2 });
      });

      it('keeps why the run waits with the event that says so, and clears it with the call that starts', async () => {
        await runs.createRun(newRun('r1'));
        const [created, started, plannerStarted] = wholeRun();
        const busy = 'Ollama at http://127.0.0.1:11434 is busy: 1 call ahead.';
        const events = stamped([created!, started!, { type: 'run_waiting', reason: 'host_busy', message: busy }, plannerStarted!]);
        const waiting = await appendAll(runs, 'r1', events.slice(0, 3));
        expect(await runs.getRun('r1')).toMatchObject({ status: 'running', waitingReason: 'host_busy', waitingMessage: busy, lastSeq: 3 });
        expect((await runs.listRuns({ limit: 10 }))[0]).toMatchObject({ waitingReason: 'host_busy', waitingMessage: busy });
        await appendAll(runs, 'r1', events.slice(3), waiting);
        expect(await runs.getRun('r1')).toMatchObject({ waitingReason: null, waitingMessage: null, lastSeq: 4 });
      });

      it('refuses a sequence number already stored, and keeps the first event and the row as they were', async () => {
        await runs.createRun(newRun('r1'));
        const [created, started] = stamped(wholeRun());
        const state = await appendAll(runs, 'r1', [created!, started!]);
        const imposter = RunEvent.parse({ seq: 2, at: 5, type: 'run_finished', status: 'completed', error: null });
        const refused = await appendOutcome(() => runs.append('r1', imposter, applyEvent({ ...state, lastSeq: 1 }, imposter)));
        expect(refused).not.toBeNull();
        expect(await runs.events('r1')).toEqual([created, started]);
        expect(await runs.getRun('r1')).toMatchObject({ status: 'running', lastSeq: 2, finishedAt: null });
      });

      it('commits an event, its row update and its artifacts together: when the row cannot be updated, none of them is stored', async () => {
        await runs.createRun(newRun('r1'));
        const [created, started] = stamped(wholeRun());
        const afterCreated = await appendAll(runs, 'r1', [created!]);
        const undo = await fixture.failRowUpdate('r1', 2);
        const artifact = prepareArtifact('planner#1.prompt.txt', 'the prompt');
        const failed = await appendOutcome(() => runs.append('r1', started!, applyEvent(afterCreated, started!), [artifact]));
        expect(failed).not.toBeNull();
        expect(await runs.events('r1')).toEqual([created]);
        expect(await runs.getRun('r1')).toMatchObject({ status: 'queued', lastSeq: 1 });
        expect(await runs.getArtifact('r1', artifact.name)).toBeNull();

        await undo();
        await runs.append('r1', started!, applyEvent(afterCreated, started!), [artifact]);
        expect(await runs.events('r1')).toEqual([created, started]);
        expect(await runs.getRun('r1')).toMatchObject({ status: 'running', lastSeq: 2 });
        expect(await runs.getArtifact('r1', artifact.name)).toMatchObject({ content: 'the prompt' });
      });

      it('commits the appends of several runs made at once, each run\'s in order', async () => {
        const ids = ['r1', 'r2', 'r3'];
        for (const id of ids) await runs.createRun(newRun(id));
        const events = stamped(wholeRun());
        const states = new Map(ids.map((id) => [id, emptyRun]));
        const appended: Promise<void>[] = [];
        for (const event of events) {
          for (const id of ids) {
            const state = applyEvent(states.get(id)!, event);
            states.set(id, state);
            appended.push(runs.append(id, event, state, [prepareArtifact(`${id}-${event.seq}.txt`, `${id} ${event.seq}`)]));
          }
        }
        await Promise.all(appended);
        for (const id of ids) {
          expect(await runs.events(id)).toEqual(events);
          expect(await runs.getRun(id)).toMatchObject(runProgressOf(states.get(id)!));
          expect(await runs.listArtifacts(id)).toHaveLength(events.length);
        }
      });

      it('commits none of the appends made with or while one that fails is pending', async () => {
        await runs.createRun(newRun('r1'));
        const [created, started, planning] = stamped(wholeRun());
        const afterCreated = await appendAll(runs, 'r1', [created!]);
        // A number already stored: refused, whatever the row does.
        const imposter = RunEvent.parse({ ...started!, seq: 1 });
        const second = appendOutcome(() => runs.append('r1', imposter, applyEvent({ ...afterCreated, lastSeq: 0 }, imposter)));
        const third = appendOutcome(() => runs.append('r1', started!, applyEvent(afterCreated, started!)));
        const fourth = appendOutcome(() => runs.append('r1', planning!, applyEvent(applyEvent(afterCreated, started!), planning!)));
        expect(await second).not.toBeNull();
        expect(await third).not.toBeNull();
        expect(await fourth).not.toBeNull();
        expect(await runs.events('r1')).toEqual([created]);
        expect(await runs.getRun('r1')).toMatchObject({ lastSeq: 1 });
      });

      it('commits a burst (appends made in the same turn) as one transaction: when it cannot be stored, none of it is', async () => {
        await runs.createRun(newRun('r1'));
        const events = stamped(wholeRun());
        const [created, started, plannerStarted, plannerFinished] = events;
        const afterCreated = await appendAll(runs, 'r1', [created!]);
        // Only the row update to the burst's last event fails; its first two events would be stored on their own.
        const undo = await fixture.failRowUpdate('r1', 4);
        const burst = [started!, plannerStarted!, plannerFinished!];
        let state = afterCreated;
        const outcomes = burst.map((event) => {
          state = applyEvent(state, event);
          const at = state;
          return appendOutcome(() => runs.append('r1', event, at, [prepareArtifact(`${event.seq}.txt`, `artifact of ${event.seq}`)]));
        });
        for (const outcome of await Promise.all(outcomes)) expect(outcome).not.toBeNull();
        expect(await runs.events('r1')).toEqual([created]);
        expect(await runs.getRun('r1')).toMatchObject({ status: 'queued', lastSeq: 1 });
        expect(await runs.listArtifacts('r1')).toEqual([]);

        // The same burst again, once the row takes updates: all of it, in order, with the row at its last event.
        await undo();
        state = afterCreated;
        await Promise.all(
          burst.map((event) => {
            state = applyEvent(state, event);
            return runs.append('r1', event, state, [prepareArtifact(`${event.seq}.txt`, `artifact of ${event.seq}`)]);
          }),
        );
        expect(await runs.events('r1')).toEqual([created, ...burst]);
        expect(await runs.getRun('r1')).toMatchObject({ ...runProgressOf(state), lastSeq: 4 });
        expect((await runs.listArtifacts('r1')).map((a) => a.name)).toEqual(['2.txt', '3.txt', '4.txt']);
      });

      it('keeps the last of the artifacts a burst writes under one name', async () => {
        await runs.createRun(newRun('r1'));
        const [created, started] = stamped(wholeRun());
        const afterCreated = applyEvent(emptyRun, created!);
        await Promise.all([
          runs.append('r1', created!, afterCreated, [prepareArtifact('note.txt', 'first')]),
          runs.append('r1', started!, applyEvent(afterCreated, started!), [prepareArtifact('note.txt', 'second')]),
        ]);
        expect(await runs.getArtifact('r1', 'note.txt')).toMatchObject({ content: 'second' });
      });

      it('shows another connection exactly what was committed', async () => {
        await runs.createRun(newRun('r1'));
        const events = stamped(wholeRun());
        await appendAll(runs, 'r1', events);
        const other = await fixture.reopen();
        cleanups.push(() => other.close());
        expect(await other.runs.events('r1')).toEqual(events);
        expect(await other.runs.getRun('r1')).toEqual(await runs.getRun('r1'));
      });

      it('lists runs narrowed by the runs list\'s filter (status, model, strategy, profile, error, review, task words), newest first, paged by cursor', async () => {
        const verdict = (seq: number) => RunEvent.parse({ seq, at: 1_700_000_100_000 + seq, type: 'human_verdict', claim: null, verdict: 'correct', note: null, by: 'ada' });
        const finished = (status: 'failed' | 'cancelled', code: 'max_rounds_exceeded' | 'cancelled') =>
          stamped([wholeRun()[0]!, { type: 'run_finished', status, error: { code, message: 'ended' } }]);
        const seed: [string, Partial<NewRunInput>, RunEvent[]][] = [
          ['judged', { task: 'How is the model ENDPOINT configured?' }, [...stamped(wholeRun()), verdict(wholeRun().length + 1)]],
          ['unjudged', { task: 'Why do 100% of retries_set fail?' }, stamped(wholeRun())],
          ['react', { task: 'Are 1000 retries set?', model: 'offline', baseline: true, strategy: 'react', profile: 'general' }, finished('failed', 'max_rounds_exceeded')],
          ['cancelled', { task: 'Which model is used for the Übersetzung?', model: 'llama3.2:latest' }, finished('cancelled', 'cancelled')],
          ['queued', { task: 'What does the planner do?' }, []],
        ];
        for (const [i, [id, overrides, events]] of seed.entries()) {
          await runs.createRun(newRun(id, { createdAt: 1_700_000_000_000 + i * 1000, ...overrides }));
          await appendAll(runs, id, events);
        }
        const ids = async (filter: ListRunsOptions['filter'], options: Partial<ListRunsOptions> = {}) =>
          (await runs.listRuns({ limit: 10, filter, ...options })).map((r) => r.id);

        expect(await ids({})).toEqual(['queued', 'cancelled', 'react', 'unjudged', 'judged']);
        expect(await ids({ status: 'completed' })).toEqual(['unjudged', 'judged']);
        expect(await ids({ status: 'queued' })).toEqual(['queued']);
        expect(await ids({ model: 'llama3.2:latest' })).toEqual(['cancelled']);
        expect(await ids({ strategy: 'react' })).toEqual(['react']);
        expect(await ids({ profile: 'general' })).toEqual(['react']);
        expect(await ids({ profile: 'file', strategy: 'plan-execute', model: 'qwen3:8b' })).toEqual(['queued', 'unjudged', 'judged']);
        expect(await ids({ error: 'max_rounds_exceeded' })).toEqual(['react']);
        expect(await ids({ error: 'timeout' })).toEqual([]);
        expect(await ids({ review: 'judged' })).toEqual(['judged']);
        expect(await ids({ review: 'needs_review' })).toEqual(['unjudged']);
        expect(await runs.getRun('judged')).toMatchObject({ status: 'completed', humanVerdicts: 1, humanReviewers: ['ada'] });
        // The review queue: completed runs fewer than k people judged, and not the person asking; names matched whole.
        const queue = (person: string, reviewers: number) => ids({}, { reviewQueue: { person, reviewers } });
        expect(await queue('ada', 1)).toEqual(['unjudged']);
        expect(await queue('ada', 2)).toEqual(['unjudged']);
        expect(await queue('bo', 1)).toEqual(['unjudged']);
        expect(await queue('bo', 2)).toEqual(['unjudged', 'judged']);
        expect(await queue('ad', 2)).toEqual(['unjudged', 'judged']);
        expect(await ids({ model: 'qwen3:8b', q: 'endpoint' }, { reviewQueue: { person: 'bo', reviewers: 2 } })).toEqual(['judged']);
        // Task words: a substring, the case of every letter ignored; %, _ and \ are themselves, not patterns.
        expect(await ids({ q: 'endpoint' })).toEqual(['judged']);
        expect(await ids({ q: 'übersetzung' })).toEqual(['cancelled']);
        expect(await ids({ q: '100%' })).toEqual(['unjudged']);
        expect(await ids({ q: 'retries_set' })).toEqual(['unjudged']);
        expect(await ids({ q: 'retries' })).toEqual(['react', 'unjudged']);
        expect(await ids({ q: '\\' })).toEqual([]);
        expect(await ids({ q: 'retries', status: 'completed' })).toEqual(['unjudged']);
        // A filtered list pages by the cursor as the whole list does.
        const [first] = await runs.listRuns({ limit: 1, filter: { model: 'qwen3:8b' } });
        expect(first!.id).toBe('queued');
        expect(await ids({ model: 'qwen3:8b' }, { limit: 2, before: { createdAt: first!.createdAt, id: first!.id } })).toEqual(['unjudged', 'judged']);

        expect(await runs.runModels()).toEqual(['llama3.2:latest', 'offline', 'qwen3:8b']);
      });

      it('keeps the evaluation a run is an item of, and lists the runs evaluations made apart from the rest', async () => {
        const seed: [string, Partial<NewRunInput>][] = [
          ['own', {}],
          ['item-1', { evalId: 'eval-1' }],
          ['item-2', { evalId: 'eval-2', strategy: 'react' }],
          ['own-react', { strategy: 'react' }],
        ];
        for (const [i, [id, overrides]] of seed.entries()) {
          await runs.createRun(newRun(id, { createdAt: 1_700_000_000_000 + i * 1000, ...overrides }));
          await appendAll(runs, id, stamped(wholeRun()));
        }
        const ids = async (filter: ListRunsOptions['filter']) => (await runs.listRuns({ limit: 10, filter })).map((r) => r.id);
        expect(await runs.getRun('item-1')).toMatchObject({ evalId: 'eval-1', status: 'completed' });
        expect(await runs.getRun('own')).toMatchObject({ evalId: null });
        expect(await ids({ origin: 'evaluation' })).toEqual(['item-2', 'item-1']);
        expect(await ids({ origin: 'direct' })).toEqual(['own-react', 'own']);
        expect(await ids({ origin: 'evaluation', strategy: 'react' })).toEqual(['item-2']);
        expect(await ids({ origin: 'direct', review: 'needs_review' })).toEqual(['own-react', 'own']);
      });
    });

    describe('the recorder over the store', () => {
      it('numbers events from the fold it starts at, commits each with its artifacts, and publishes them in order once committed', async () => {
        await runs.createRun(newRun('r1'));
        const published: number[] = [];
        const recorder = new RunRecorder('r1', runs, (e) => published.push(e.seq), emptyRun);
        for (const event of wholeRun()) {
          if (event.type === 'llm_call_started') recorder.artifact(event.promptArtifact, `prompt of ${event.call}`);
          if (event.type === 'llm_call_finished') recorder.artifact(event.responseArtifact, `reply of ${event.call}`);
          if (event.type === 'step_finished') recorder.artifact(event.observation.artifact, CONFIG_TEXT);
          recorder.emit(event);
        }
        await recorder.flushed();
        const stored = await runs.events('r1');
        expect(stored.map((e) => e.seq)).toEqual(wholeRun().map((_, i) => i + 1));
        expect(published).toEqual(stored.map((e) => e.seq));
        expect(recorder.committedView).toEqual(foldRun(stored));
        expect(recorder.view).toEqual(recorder.committedView);
        expect(await runs.getRun('r1')).toMatchObject(runProgressOf(recorder.view));
        expect((await runs.listArtifacts('r1')).map((a) => a.name)).toEqual([
          'observation/src/config.ts',
          'planner#1.prompt.txt',
          'planner#1.response.txt',
          'synthesizer#2.prompt.txt',
          'synthesizer#2.response.txt',
        ]);

        // A second recorder (recovery, another process) goes on from the fold of what is stored.
        await runs.createRun(newRun('r2'));
        const first = new RunRecorder('r2', runs, () => {}, emptyRun);
        first.emit(wholeRun()[0]!);
        first.emit({ type: 'run_started' });
        await first.flushed();
        const next = new RunRecorder('r2', runs, () => {}, foldRun(await runs.events('r2')));
        expect(next.emit({ type: 'run_finished', status: 'interrupted', error: { code: 'interrupted', message: 'gone' } }).seq).toBe(3);
        await next.flushed();
        expect(await runs.getRun('r2')).toMatchObject({ status: 'interrupted', errorCode: 'interrupted', lastSeq: 3 });
      });

      it('announces an event only once another connection can read it', async () => {
        await runs.createRun(newRun('r1'));
        const other = await fixture.reopen();
        cleanups.push(() => other.close());
        const seen: Promise<boolean>[] = [];
        const recorder = new RunRecorder('r1', runs, (e) => seen.push(other.runs.events('r1', e.seq - 1, 1).then((read) => read[0]?.seq === e.seq)), emptyRun);
        for (const event of wholeRun()) recorder.emit(event);
        await recorder.flushed();
        expect(await Promise.all(seen)).toEqual(wholeRun().map(() => true));
      });

      it('publishes nothing that was not committed, and a failed commit stops the run', async () => {
        await runs.createRun(newRun('r1'));
        const published: number[] = [];
        const stops: Error[] = [];
        const recorder = new RunRecorder('r1', runs, (e) => published.push(e.seq), emptyRun, (error) => stops.push(error));
        recorder.emit(wholeRun()[0]!);
        await recorder.flushed();
        const undo = await fixture.failRowUpdate('r1', 3);

        // A burst whose last event's row update fails: neither event of it is stored or published.
        recorder.emit({ type: 'run_started' });
        recorder.emit(wholeRun()[2]!);
        await expect(recorder.flushed()).rejects.toThrow();
        expect((await runs.events('r1')).map((e) => e.seq)).toEqual([1]);
        expect(published).toEqual([1]);
        expect(recorder.committedView.lastSeq).toBe(1);
        await undo();

        // The run is told to stop, once, and records nothing more.
        expect(stops).toHaveLength(1);
        expect(recorder.failed).toBe(true);
        expect(() => recorder.emit({ type: 'run_finished', status: 'cancelled', error: null })).toThrow(/cannot record more events/);
        await runs.settled();
        expect((await runs.events('r1')).map((e) => e.seq)).toEqual([1]);
        expect(published).toEqual([1]);
      });
    });

    describe('artifacts', () => {
      async function storeWith(artifacts: Record<string, string>): Promise<void> {
        await runs.createRun(newRun('r1'));
        const pending: PendingArtifact[] = Object.entries(artifacts).map(([name, text]) => prepareArtifact(name, text));
        await runs.append('r1', stamped([{ type: 'run_started' }])[0]!, { ...emptyRun, status: 'running', lastSeq: 1 }, pending);
      }

      it('keeps each whole, with its size in bytes, its hash and its media type, listed by name', async () => {
        await runs.createRun(newRun('r1'));
        const json = prepareArtifact('b.json', '{"a":1}', 'application/json');
        const text = prepareArtifact('a.txt', 'naïve — 😀\n');
        await runs.append('r1', stamped([{ type: 'run_started' }])[0]!, { ...emptyRun, status: 'running', lastSeq: 1 }, [json, text]);
        const listed = await runs.listArtifacts('r1');
        expect(listed.map((a) => a.name)).toEqual(['a.txt', 'b.json']);
        expect(listed[0]).toEqual({ name: 'a.txt', mediaType: 'text/plain', bytes: Buffer.byteLength('naïve — 😀\n'), sha256: text.sha256, content: 'naïve — 😀\n' });
        expect(await runs.getArtifact('r1', 'b.json')).toEqual({ name: 'b.json', mediaType: 'application/json', bytes: 7, sha256: json.sha256, content: '{"a":1}' });
        for (const a of listed) expect(createHash('sha256').update(a.content, 'utf8').digest('hex')).toBe(a.sha256);
        expect(await runs.getArtifact('r1', 'missing')).toBeNull();
        expect(await runs.getArtifact('other', 'a.txt')).toBeNull();
        expect(await runs.listArtifacts('other')).toEqual([]);
      });

      it('replaces what a name held when it is written again', async () => {
        await storeWith({ 'note.txt': 'first' });
        const again = prepareArtifact('note.txt', 'second');
        await runs.append('r1', stamped([{ type: 'run_finished', status: 'completed', error: null }], 2)[0]!, { ...emptyRun, status: 'completed', lastSeq: 2 }, [again]);
        expect(await runs.getArtifact('r1', 'note.txt')).toMatchObject({ content: 'second', sha256: again.sha256, bytes: 6 });
      });

      it('artifactHead: returns the first bytes and the whole size, and the whole text when it is short', async () => {
        const big = 'line\n'.repeat(200_000);
        await storeWith({ big, small: 'a\nb\n' });
        expect(await runs.artifactHead('r1', 'big', 12)).toEqual({ text: 'line\nline\nli', bytes: big.length });
        expect(await runs.artifactHead('r1', 'small', 12)).toEqual({ text: 'a\nb\n', bytes: 4 });
        expect(await runs.artifactHead('r1', 'missing', 12)).toBeNull();
      });

      it('artifactHead: leaves out a character the cut splits, never a broken one', async () => {
        await storeWith({ utf8: 'ab€cd😀' }); // € is 3 bytes, 😀 is 4
        expect((await runs.artifactHead('r1', 'utf8', 3))?.text).toBe('ab');
        expect((await runs.artifactHead('r1', 'utf8', 5))?.text).toBe('ab€');
        expect((await runs.artifactHead('r1', 'utf8', 9))?.text).toBe('ab€cd');
        expect((await runs.artifactHead('r1', 'utf8', 11))?.text).toBe('ab€cd😀');
      });
    });

    describe('a whole run at once (an imported bundle)', () => {
      const imported = (id: string) => {
        const events = stamped(wholeRun());
        const state = foldRun(events);
        const row = RunRow.parse({ ...newRun(id), importedFrom: 'run r0 on box-b', importedAt: 1_700_000_100_000, ...runProgressOf(state) });
        const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
        const artifacts: PendingArtifact[] = [
          prepareArtifact('planner#1.prompt.txt', 'prompt'),
          prepareArtifact('observation/src/config.ts', CONFIG_TEXT),
          { name: 'raw.bin', mediaType: 'application/octet-stream', buffer: bytes, sha256: createHash('sha256').update(bytes).digest('hex') },
        ];
        return { events, state, row, artifacts };
      };

      it('stores its row, every event and every artifact, bytes as they were', async () => {
        const { events, state, row, artifacts } = imported('r1');
        await runs.importRun(row, events, artifacts);
        expect(await runs.getRun('r1')).toEqual(row);
        expect(foldRun(await runs.events('r1'))).toEqual(state);
        const stored = await runs.artifactBytes('r1');
        expect(stored.map((a) => [a.name, a.mediaType, a.sha256, a.buffer.toString('hex')])).toEqual(
          [...artifacts].sort((a, b) => (a.name < b.name ? -1 : 1)).map((a) => [a.name, a.mediaType, a.sha256, a.buffer.toString('hex')]),
        );
        expect(await runs.unfinishedRuns()).toEqual([]);
      });

      it('stores the replays of its calls with it, their artifacts\' bytes as they were', async () => {
        const { events, row, artifacts } = imported('r1');
        const bytes = Buffer.from([0xc3, 0x28]);
        const odd: PendingArtifact = { name: 'response.txt', mediaType: 'text/plain', buffer: bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
        await runs.importRun(row, events, artifacts, [
          { record: replayOf('r1', 'p1', 1), artifacts: [odd, prepareArtifact('thinking.txt', 'hmm')] },
          { record: replayOf('r1', 'p2', 2), artifacts: [] },
        ]);
        expect(await replays.list('r1', 'synthesizer#2')).toEqual([replayOf('r1', 'p1', 1), replayOf('r1', 'p2', 2)]);
        expect((await replays.artifactBytes('p1')).map((a) => [a.name, a.sha256, a.buffer.toString('hex')])).toEqual([
          ['response.txt', odd.sha256, 'c328'],
          ['thinking.txt', createHash('sha256').update('hmm').digest('hex'), Buffer.from('hmm').toString('hex')],
        ]);
      });

      it('stores nothing of it when any part fails, and refuses an id already stored', async () => {
        const { events, row, artifacts } = imported('r1');
        const twice = [...events, events.at(-1)!];
        expect(await appendOutcome(() => runs.importRun(row, twice, artifacts))).not.toBeNull();
        expect(await runs.getRun('r1')).toBeNull();
        expect(await runs.events('r1')).toEqual([]);
        expect(await runs.artifactBytes('r1')).toEqual([]);

        await runs.createRun(newRun('r2'));
        expect(await appendOutcome(() => runs.importRun({ ...row, id: 'r2' }, events, artifacts))).not.toBeNull();
        expect(await runs.events('r2')).toEqual([]);
        expect(await runs.artifactBytes('r2')).toEqual([]);
        expect((await runs.getRun('r2'))?.status).toBe('queued');

        // A replay the store refuses (an id it holds already) undoes the run's rows written before it.
        await replays.add(replayOf('r2', 'taken', 1), []);
        const clash = [{ record: replayOf('r3', 'p1', 1), artifacts: [] }, { record: replayOf('r3', 'taken', 2), artifacts: [] }];
        expect(await appendOutcome(() => runs.importRun({ ...row, id: 'r3' }, events, artifacts, clash))).not.toBeNull();
        expect(await runs.getRun('r3')).toBeNull();
        expect(await runs.events('r3')).toEqual([]);
        expect(await replays.list('r3', 'synthesizer#2')).toEqual([]);
        expect(await replays.list('r2', 'synthesizer#2')).toEqual([replayOf('r2', 'taken', 1)]);
      });
    });

    describe('stored suites', () => {
      const task = (id: string): EvalTask => ({ id, category: 'from-run', task: `Task ${id}?`, mustState: ['a', ['b', 'c']], mustNotState: [], mustRead: ['src/a.ts'], refusalOk: false });
      const add = (name: string, id: string) =>
        fixture.suites.update(name, (current) => ({ ...(current ?? { name, workspace: '/ws', description: 'made here' }), tasks: [...(current?.tasks ?? []), task(id)] }));

      it('creates a suite on its first case, adds later ones, and lists them by name', async () => {
        await add('zeta', 'one');
        await add('alpha', 'one');
        await add('alpha', 'two');
        expect(await fixture.suites.get('alpha')).toEqual({ name: 'alpha', workspace: '/ws', description: 'made here', tasks: [task('one'), task('two')] });
        expect(await fixture.suites.get('missing')).toBeNull();
        const listed = await fixture.suites.list();
        expect(listed.map((s) => [s.name, s.tasks, s.workspace, s.description])).toEqual([
          ['alpha', 2, '/ws', 'made here'],
          ['zeta', 1, '/ws', 'made here'],
        ]);
      });

      it('stores nothing when the change throws, and loses neither of two changes made at once', async () => {
        await add('s', 'one');
        await expect(fixture.suites.update('s', () => { throw new Error('refused'); })).rejects.toThrow('refused');
        await Promise.all([add('s', 'two'), add('s', 'three')]);
        expect((await fixture.suites.get('s'))?.tasks.map((t) => t.id).sort()).toEqual(['one', 'three', 'two']);
      });
    });

    describe('listing runs', () => {
      /** Five runs: two at the same moment (told apart by id), two of another task. */
      async function fiveRuns(): Promise<void> {
        await runs.createRun(newRun('a', { createdAt: 1000 }));
        await runs.createRun(newRun('b', { createdAt: 2000, task: 'Other task' }));
        await runs.createRun(newRun('c', { createdAt: 3000 }));
        await runs.createRun(newRun('d', { createdAt: 3000, task: 'Other task' }));
        await runs.createRun(newRun('e', { createdAt: 4000, task: `${TASK} ` }));
      }

      it('lists newest first, by creation time and then id, at most a limit', async () => {
        await fiveRuns();
        expect((await runs.listRuns({ limit: 10 })).map((r) => r.id)).toEqual(['e', 'd', 'c', 'b', 'a']);
        expect((await runs.listRuns({ limit: 2 })).map((r) => r.id)).toEqual(['e', 'd']);
      });

      it('pages with the cursor of the last row, every run once', async () => {
        await fiveRuns();
        const seen: string[] = [];
        let before: { createdAt: number; id: string } | undefined;
        for (let page = 0; page < 5; page++) {
          const rows = await runs.listRuns({ limit: 2, before });
          if (rows.length === 0) break;
          seen.push(...rows.map((r) => r.id));
          const last = rows.at(-1)!;
          before = { createdAt: last.createdAt, id: last.id };
        }
        expect(seen).toEqual(['e', 'd', 'c', 'b', 'a']);
        expect((await runs.listRuns({ limit: 10, before: { createdAt: 3000, id: 'd' } })).map((r) => r.id)).toEqual(['c', 'b', 'a']);
      });

      it('filters by exactly the same task, with the cursor too', async () => {
        await fiveRuns();
        expect((await runs.listRuns({ limit: 10, task: TASK })).map((r) => r.id)).toEqual(['c', 'a']);
        expect((await runs.listRuns({ limit: 10, task: 'Other task' })).map((r) => r.id)).toEqual(['d', 'b']);
        expect((await runs.listRuns({ limit: 10, task: 'other task' })).map((r) => r.id)).toEqual([]);
        expect((await runs.listRuns({ limit: 10, task: TASK, before: { createdAt: 3000, id: 'c' } })).map((r) => r.id)).toEqual(['a']);
      });

      it("lists a run's forks, newest first, with the round each was forked at", async () => {
        await fiveRuns();
        await runs.createRun(newRun('fork-1', { createdAt: 5000, forkedFromRun: 'a', forkedFromRound: 2 }));
        await runs.createRun(newRun('fork-2', { createdAt: 6000, forkedFromRun: 'a', forkedFromRound: 1 }));
        await runs.createRun(newRun('fork-of-c', { createdAt: 7000, forkedFromRun: 'c', forkedFromRound: 1 }));
        const forks = await runs.listRuns({ limit: 10, forkedFrom: 'a' });
        expect(forks.map((r) => [r.id, r.forkedFromRun, r.forkedFromRound])).toEqual([
          ['fork-2', 'a', 1],
          ['fork-1', 'a', 2],
        ]);
        expect((await runs.listRuns({ limit: 10, forkedFrom: 'b' })).map((r) => r.id)).toEqual([]);
        expect((await runs.getRun('a'))?.forkedFromRun).toBeNull();
      });

      it('finds the runs of a task longer than an index entry can hold', async () => {
        const long = `${'Explain every configuration option, one by one. '.repeat(400)}`;
        await runs.createRun(newRun('long-1', { createdAt: 1000, task: long }));
        await runs.createRun(newRun('long-2', { createdAt: 2000, task: `${long}!` }));
        await runs.createRun(newRun('long-3', { createdAt: 3000, task: long }));
        expect((await runs.listRuns({ limit: 10, task: long })).map((r) => r.id)).toEqual(['long-3', 'long-1']);
      });

      it('finds the runs no terminal event has finished, for recovery', async () => {
        const AWAITING: NewRunEvent = { type: 'approval_requested', round: 1, request: 'r1', steps: [{ purpose: 'Read', path: 'a.ts' }] };
        for (const [id, events] of [
          ['queued', []],
          ['running', [{ type: 'run_started' }]],
          ['done', [{ type: 'run_started' }, { type: 'run_finished', status: 'completed', error: null }]],
          ['interrupted', [{ type: 'run_finished', status: 'interrupted', error: { code: 'interrupted', message: 'gone' } }]],
          ['awaiting', [{ type: 'run_started' }, AWAITING]],
        ] as const) {
          await runs.createRun(newRun(id));
          await appendAll(runs, id, stamped([wholeRun()[0]!, ...events]));
        }
        expect((await runs.unfinishedRuns()).map((r) => [r.id, r.status]).sort()).toEqual([
          ['awaiting', 'awaiting_approval'],
          ['queued', 'queued'],
          ['running', 'running'],
        ]);
      });

      it('hands a run to another owner only while the owner it names still holds it', async () => {
        await runs.createRun(newRun('waiting'));
        const from = { host: 'box-a', pid: 4242, start: 'start-a' };
        const to = { host: 'box-a', pid: 5151, start: 'start-b' };
        expect(await runs.claimRun('waiting', from, to)).toBe(true);
        expect(await runs.claimRun('waiting', from, { host: 'box-a', pid: 6161, start: 'start-c' })).toBe(false);
        const row = await runs.getRun('waiting');
        expect([row?.ownerHost, row?.ownerPid, row?.ownerStart]).toEqual(['box-a', 5151, 'start-b']);
      });
    });

    describe('evaluations', () => {
      it('records one as running with its settings, its items in order, and how it finished', async () => {
        await evals.create('e1', 'sample', SETTINGS);
        expect(await evals.get('e1')).toEqual({
          id: 'e1',
          createdAt: expect.any(Number),
          finishedAt: null,
          suite: 'sample',
          settings: SETTINGS,
          status: 'running',
          error: null,
          items: [],
        });
        await evals.addItem('e1', 2, { ...ITEM, taskId: 'second' });
        await evals.addItem('e1', 1, ITEM);
        await evals.finish('e1', 'completed');
        const record = await evals.get('e1');
        expect(record).toMatchObject({ status: 'completed', error: null, finishedAt: expect.any(Number) });
        expect(record!.items).toEqual([ITEM, { ...ITEM, taskId: 'second' }]);

        await evals.create('e2', 'sample', SETTINGS);
        await evals.finish('e2', 'failed', { code: 'workspace_not_found', message: 'The workspace /nope does not exist.' });
        expect(await evals.get('e2')).toMatchObject({ status: 'failed', error: { code: 'workspace_not_found', message: 'The workspace /nope does not exist.' } });
        expect(await evals.get('missing')).toBeNull();
      });

      it('lists them newest first without their items, at most a limit', async () => {
        for (const id of ['e1', 'e2', 'e3']) {
          await evals.create(id, `suite ${id}`, SETTINGS);
          await sleep(5);
        }
        await evals.addItem('e3', 1, ITEM);
        const listed = await evals.list(2);
        expect(listed.map((e) => e.id)).toEqual(['e3', 'e2']);
        expect(listed[0]).not.toHaveProperty('items');
      });

      it('does not take one this process is running for an orphan, read through another connection', async () => {
        await evals.create('mine', 'sample', SETTINGS);
        const other = await fixture.reopen();
        cleanups.push(() => other.close());
        expect(await other.evals.get('mine')).toMatchObject({ status: 'running', error: null });
        expect((await other.evals.list()).map((e) => [e.id, e.status])).toEqual([['mine', 'running']]);
      });
    });

    describe('replays', () => {
      it('keeps a call\'s replays as their own records with their artifacts, oldest first, and leaves the run as it was', async () => {
        await runs.createRun(newRun('r1'));
        await appendAll(runs, 'r1', stamped(wholeRun()));
        const eventsBefore = await runs.events('r1');
        const artifactsBefore = await runs.listArtifacts('r1');
        const rowBefore = await runs.getRun('r1');

        const response = prepareArtifact('response.txt', '{"claims":[]}');
        await replays.add(replayOf('r1', 'p2', 2, 1_700_000_100_000), [response]);
        await replays.add(replayOf('r1', 'p1', 1, 1_700_000_100_000), [response, prepareArtifact('thinking.txt', 'hmm')]);
        await replays.add(replayOf('r1', 'p3', 1, 1_700_000_000_500), []);
        await replays.add({ ...replayOf('r1', 'other', 1), call: 'planner#1', label: 'planner' }, []);

        expect((await replays.list('r1', 'synthesizer#2')).map((r) => r.id)).toEqual(['p3', 'p1', 'p2']);
        expect((await replays.list('r1', 'synthesizer#2'))[1]).toEqual(replayOf('r1', 'p1', 1));
        expect(await replays.list('r1', 'synthesizer#9')).toEqual([]);
        expect(await replays.artifact('p1', 'thinking.txt')).toMatchObject({ content: 'hmm', bytes: 3, sha256: createHash('sha256').update('hmm').digest('hex') });
        expect(await replays.artifact('p3', 'response.txt')).toBeNull();
        expect((await replays.artifactBytes('p1')).map((a) => [a.name, a.mediaType, a.sha256, a.buffer.toString('utf8')])).toEqual([
          ['response.txt', 'text/plain', response.sha256, '{"claims":[]}'],
          ['thinking.txt', 'text/plain', createHash('sha256').update('hmm').digest('hex'), 'hmm'],
        ]);
        expect(await replays.artifactBytes('p3')).toEqual([]);

        const other = await fixture.reopen();
        cleanups.push(() => other.close());
        expect((await other.replays.list('r1', 'planner#1')).map((r) => r.id)).toEqual(['other']);

        expect(await runs.events('r1')).toEqual(eventsBefore);
        expect(await runs.listArtifacts('r1')).toEqual(artifactsBefore);
        expect(await runs.getRun('r1')).toEqual(rowBefore);
      });

      it('refuses a replay of a run that does not exist, and one with an id already stored, storing nothing of either', async () => {
        await runs.createRun(newRun('r1'));
        await expect(replays.add(replayOf('missing', 'p1', 1), [prepareArtifact('response.txt', 'x')])).rejects.toThrow();
        expect(await replays.list('missing', 'synthesizer#2')).toEqual([]);
        expect(await replays.artifact('p1', 'response.txt')).toBeNull();

        await replays.add(replayOf('r1', 'p1', 1), []);
        await expect(replays.add({ ...replayOf('r1', 'p1', 2) }, [prepareArtifact('response.txt', 'x')])).rejects.toThrow();
        expect((await replays.list('r1', 'synthesizer#2')).map((r) => r.attempt)).toEqual([1]);
        expect(await replays.artifact('p1', 'response.txt')).toBeNull();
      });
    });
  });
}
