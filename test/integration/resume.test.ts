import { spawn } from 'node:child_process';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewRunEvent, RunEvent } from '../../lib/events';
import { emptyRun } from '../../lib/run-state';
import { toResult } from '../../lib/result';
import { isRequestError } from '../../server/errors';
import { RunRecorder } from '../../server/runs/recorder';
import type { Owner } from '../../server/store/owner';
import { ENDPOINT_TASK, endpointAnswer, plan, startHarness, type Harness } from '../support/harness';

/**
 * A run whose process died is taken over from its own log: the round it
 * was in runs again with the reads it had completed reused (the file is not
 * read through the bridge again), it ends as it would have, and its
 * sequence numbers run on without a gap. The log's first part is a real
 * run's, cut where its process would have died.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const script = () => ({ planner: [{ content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ content: endpointAnswer() }] });

/** The pid of a process that has just ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/**
 * A copy of a finished run's log up to (and with) its first completed read,
 * with the artifacts it names, stored as run `id` owned by `owner`: what a
 * process that died just after that read left behind.
 */
async function leftAfterFirstRead(harness: Harness, from: string, id: string, owner: KnownOwner): Promise<RunEvent[]> {
  return leftAfter(harness, from, id, owner, (e) => e.type === 'step_finished');
}

/** The same, cut after the first event `last` picks. */
async function leftAfter(harness: Harness, from: string, id: string, owner: KnownOwner, last: (e: RunEvent) => boolean): Promise<RunEvent[]> {
  const events = await harness.runtime.store.events(from);
  const prefix = events.slice(0, events.findIndex(last) + 1);
  const row = (await harness.runtime.store.getRun(from))!;
  await harness.runtime.store.createRun({
    id,
    createdAt: Date.now(),
    task: row.task,
    model: row.model,
    baseline: row.baseline,
    workspace: row.workspace,
    strategy: row.strategy,
    profile: row.profile,
    ownerHost: owner.host,
    ownerPid: owner.pid,
    ownerStart: owner.start,
  });
  const recorder = new RunRecorder(id, harness.runtime.store, () => {}, emptyRun);
  const named = JSON.stringify(prefix);
  for (const a of await harness.runtime.store.listArtifacts(from)) if (named.includes(JSON.stringify(a.name))) recorder.artifact(a.name, a.content, a.mediaType);
  for (const { seq: _seq, at: _at, ...event } of prefix) recorder.emit(event as NewRunEvent);
  await recorder.flushed();
  return prefix;
}

/** An owner recorded with all of its parts, as a process records itself. */
type KnownOwner = { [K in keyof Owner]: NonNullable<Owner[K]> };

async function deadOwner(): Promise<KnownOwner> {
  return { host: os.hostname(), pid: await deadPid(), start: 'a-process-that-died' };
}

describe('a run taken over after its process died', () => {
  it('records run_resumed, runs the interrupted round again reusing its completed read, and completes with contiguous events', async () => {
    h = await startHarness(script(), { PLANSCOPE_READ_AHEAD: 'false' });
    const original = await h.run(ENDPOINT_TASK);
    expect(original.result.status).toBe('completed');
    const owner = await deadOwner();
    const prefix = await leftAfterFirstRead(h, original.id, 'resumed-run', owner);
    // Steps run side by side: whichever read completed first is the one the dead process had done.
    const done = prefix.flatMap((e) => (e.type === 'step_finished' ? [e.path] : []));
    expect(done).toHaveLength(1);
    const [read] = done;
    const notRead = ['src/config.ts', 'src/llm.ts'].find((p) => p !== read);

    await h.runtime.registry.runStored('resumed-run', { attempt: 2, maxAttempts: 3, from: owner });
    const view = await h.runtime.registry.waitFor('resumed-run');
    const events = await h.runtime.store.events('resumed-run');

    expect(view.status).toBe('completed');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const after = events.slice(prefix.length);
    expect(after[0]).toMatchObject({ type: 'run_resumed', attempt: 2, round: 1, restart: 'round' });
    // The completed read is reused, not read through the bridge again; the one not completed is read.
    expect(after.filter((e) => e.type === 'step_finished').map((e) => e.type === 'step_finished' && e.path)).toEqual([notRead]);
    expect(after.find((e) => e.type === 'step_cached')).toMatchObject({ path: read, fromRound: 1, round: 1 });
    // No planner call: the round runs the plan it had; the answer is written as it would have been.
    expect(after.filter((e) => e.type === 'llm_call_started').map((e) => e.type === 'llm_call_started' && e.label)).toEqual(['synthesizer', 'reviewer']);
    // The round as it was when the process died is kept, set aside; the Result reports the round that ran again.
    expect(view.rounds.map((r) => [r.round, r.interrupted === true])).toEqual([
      [1, true],
      [1, false],
    ]);
    expect(view.resumes).toEqual([expect.objectContaining({ attempt: 2, round: 1, restart: 'round' })]);
    const result = toResult('resumed-run', view);
    expect(result.resumes).toHaveLength(1);
    expect(result.plans).toHaveLength(1);
    expect(result.answer).toBe(original.result.answer);
    expect((await h.runtime.store.getRun('resumed-run'))?.status).toBe('completed');
  });

  it('plans a round again when its process died while the planner was answering', async () => {
    h = await startHarness(script(), { PLANSCOPE_READ_AHEAD: 'false' });
    const original = await h.run(ENDPOINT_TASK);
    const owner = await deadOwner();
    const prefix = await leftAfter(h, original.id, 'mid-plan', owner, (e) => e.type === 'llm_call_started');

    await h.runtime.registry.runStored('mid-plan', { attempt: 2, maxAttempts: 3, from: owner });
    const view = await h.runtime.registry.waitFor('mid-plan');
    const after = (await h.runtime.store.events('mid-plan')).slice(prefix.length);

    expect(view.status).toBe('completed');
    expect(after[0]).toMatchObject({ type: 'run_resumed', attempt: 2, round: 1, restart: 'plan' });
    // The planner is asked again under the next call number; the call that never answered stays in the log.
    expect(after.filter((e) => e.type === 'llm_call_started').map((e) => e.type === 'llm_call_started' && e.call)).toEqual(['planner#2', 'synthesizer#3', 'reviewer#4']);
    expect(view.rounds.map((r) => [r.round, r.interrupted === true, r.call])).toEqual([
      [1, true, 'planner#1'],
      [1, false, 'planner#2'],
    ]);
    expect(Object.keys(view.observations).sort()).toEqual(['src/config.ts', 'src/llm.ts']);
  });

  it('ends a run interrupted, with the reason, once it has been run as many times as it may be', async () => {
    h = await startHarness(script(), { PLANSCOPE_READ_AHEAD: 'false' });
    const original = await h.run(ENDPOINT_TASK);
    const owner = await deadOwner();
    const prefix = await leftAfterFirstRead(h, original.id, 'worn-out', owner);

    await h.runtime.registry.runStored('worn-out', { attempt: 4, maxAttempts: 3, from: owner });
    const view = await h.runtime.registry.waitFor('worn-out');
    const events = await h.runtime.store.events('worn-out');

    expect(view.status).toBe('interrupted');
    expect(view.error?.message).toMatch(/run 3 times.*3 attempts/);
    expect(events.slice(prefix.length).map((e) => e.type)).toEqual(['run_finished']);
    expect(view.resumes).toEqual([]);
  });

  it('refuses to take over a run from a process that does not own it (run_not_claimed), changing nothing', async () => {
    h = await startHarness(script(), { PLANSCOPE_READ_AHEAD: 'false' });
    const original = await h.run(ENDPOINT_TASK);
    const owner = await deadOwner();
    const prefix = await leftAfterFirstRead(h, original.id, 'owned-elsewhere', owner);

    const refused = await h.runtime.registry.runStored('owned-elsewhere', { attempt: 2, maxAttempts: 3, from: { ...owner, start: 'another-process' } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRequestError(refused) && refused.code).toBe('run_not_claimed');
    expect(await h.runtime.store.events('owned-elsewhere')).toHaveLength(prefix.length);
    expect((await h.runtime.store.getRun('owned-elsewhere'))?.ownerStart).toBe('a-process-that-died');
  });

  it('runs a fork created without running it from its own log, where its run_created says it begins', async () => {
    h = await startHarness(script(), { PLANSCOPE_READ_AHEAD: 'false' });
    const parent = await h.run(ENDPOINT_TASK);
    const { id } = await h.runtime.registry.create({ fork: { run: parent.id, round: 1, plan: { steps: [{ purpose: 'Read src/config.ts', path: 'src/config.ts' }] } } });
    const [created] = await h.runtime.store.events(id);
    expect(created).toMatchObject({ type: 'run_created', begin: { stage: 'plan', round: 1, lessons: [] } });
    expect(h.runtime.registry.isLive(id)).toBe(false);

    await h.runtime.registry.runStored(id, { attempt: 1, maxAttempts: 1, from: h.runtime.registry.owner });
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('completed');
    expect(view.resumes).toEqual([]);
    // Round 1 ran the fork's own plan, given, not a planner's.
    expect(view.rounds.map((r) => [r.round, r.call, r.steps.map((s) => s.path)])).toEqual([[1, null, ['src/config.ts']]]);

    const answer = await h.runtime.registry.create({ fork: { run: parent.id, stage: 'answer' } });
    await h.runtime.registry.runStored(answer.id, { attempt: 1, maxAttempts: 1, from: h.runtime.registry.owner });
    const answered = await h.runtime.registry.waitFor(answer.id);
    expect(answered.status).toBe('completed');
    expect(answered.rounds).toEqual([]);
    expect(answered.llmCalls.map((c) => c.label)).toEqual(['synthesizer', 'reviewer']);
    expect(Object.values(answered.observations).map((o) => o.carriedFrom)).toEqual([parent.id, parent.id]);
  });
});
