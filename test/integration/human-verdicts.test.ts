import { afterEach, describe, expect, it } from 'vitest';
import { RunResult, toResult } from '../../lib/result';
import { peopleAgreement, peopleClaimsOf } from '../../lib/people-agreement';
import { foldRun } from '../../lib/run-state';
import { runEventStream } from '../../server/http/run-stream';
import { isRequestError } from '../../server/errors';
import { answer, endpointAnswer, ENDPOINT_TASK, plan, startHarness, type Harness } from '../support/harness';
import { readRunStream } from '../support/sse';

/**
 * People's verdicts on a finished run: appended to its log after
 * `run_finished` (the run's status and outcome unchanged, its row's verdict
 * count updated with the event), folded per claim and person (a later
 * verdict by the same person supersedes theirs, the history keeps both),
 * carried by the Result apart from the Checker's and the Reviewer's. The
 * vitest project `postgres` runs this file again on PostgreSQL.
 */

const TWO_CLAIMS = answer([
  JSON.parse(endpointAnswer()).claims[0],
  { text: 'Runs are retried forever.', citations: [{ path: 'src/config.ts', startLine: 1, endLine: 1, quote: 'retried forever' }] },
]);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isRequestError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('human verdicts on a finished run', () => {
  it('fold per claim and person into the view and the Result; a later verdict supersedes the same person\'s and the history keeps both', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: TWO_CLAIMS }] });
    const run = await h.run(ENDPOINT_TASK);
    expect(run.view.status).toBe('completed');
    expect(run.result.humanVerdicts).toEqual({ current: [], history: [] });
    const before = await h.runtime.store.getRun(run.id);
    expect(before).toMatchObject({ status: 'completed', humanVerdicts: 0, humanReviewers: [] });

    const published: string[] = [];
    const unsubscribe = h.runtime.bus.subscribe(run.id, (e) => published.push(e.type));
    const { verdicts } = h.runtime;
    const first = await verdicts.record(run.id, { claim: 1, verdict: 'correct' }, 'ada');
    await verdicts.record(run.id, { claim: 2, verdict: 'unsure', note: '  not sure what "forever" means  ' }, 'ada');
    await verdicts.record(run.id, { claim: 2, verdict: 'incorrect', note: 'The file says nothing about retries.' }, 'grace');
    const superseding = await verdicts.record(run.id, { claim: 2, verdict: 'incorrect' }, 'ada');
    await verdicts.record(run.id, { claim: null, verdict: 'incorrect', note: '' }, 'ada');
    unsubscribe();
    expect(published).toEqual(['human_verdict', 'human_verdict', 'human_verdict', 'human_verdict', 'human_verdict']);
    expect(first).toMatchObject({ type: 'human_verdict', seq: run.events.length + 1, claim: 1, verdict: 'correct', note: null, by: 'ada' });

    const events = await h.runtime.store.events(run.id);
    expect(events.slice(0, run.events.length)).toEqual(run.events);
    const view = foldRun(events);
    // The run's own outcome is as it was: the same status, end, Checker's and Reviewer's verdicts.
    expect({ status: view.status, finishedAt: view.finishedAt, check: view.check, review: view.review, error: view.error }).toEqual({
      status: run.view.status,
      finishedAt: run.view.finishedAt,
      check: run.view.check,
      review: run.view.review,
      error: run.view.error,
    });
    expect(view.check!.claims.map((c) => c.verdict)).toEqual(['supported', 'mis-cited']);

    const current = view.humanVerdicts.current.map(({ claim, by, verdict, note }) => ({ claim, by, verdict, note }));
    expect(current).toEqual([
      { claim: 1, by: 'ada', verdict: 'correct', note: null },
      { claim: 2, by: 'grace', verdict: 'incorrect', note: 'The file says nothing about retries.' },
      { claim: 2, by: 'ada', verdict: 'incorrect', note: null },
      { claim: null, by: 'ada', verdict: 'incorrect', note: null },
    ]);
    expect(view.humanVerdicts.history.map((v) => [v.claim, v.by, v.verdict, v.note])).toEqual([
      [1, 'ada', 'correct', null],
      [2, 'ada', 'unsure', 'not sure what "forever" means'],
      [2, 'grace', 'incorrect', 'The file says nothing about retries.'],
      [2, 'ada', 'incorrect', null],
      [null, 'ada', 'incorrect', null],
    ]);

    const result = toResult(run.id, view);
    const sent = JSON.parse(JSON.stringify(result)) as unknown;
    expect(RunResult.parse(sent)).toEqual(sent);
    expect(result.humanVerdicts.current).toHaveLength(4);
    expect(result.humanVerdicts.history[3]).toEqual({
      seq: superseding.seq,
      at: new Date(superseding.at).toISOString(),
      claim: 2,
      verdict: 'incorrect',
      note: null,
      by: 'ada',
    });
    expect(result.check).toEqual(run.result.check);
    expect(result.review).toEqual(run.result.review);

    // The row: same status and outcome, the verdicts counted, in the same commit as each event.
    expect(await h.runtime.store.getRun(run.id)).toEqual({ ...before, lastSeq: events.length, humanVerdicts: 5, humanReviewers: ['ada', 'grace'] });

    // A fresh stream of the finished run sends the verdicts after its end, then ends.
    const streamed = await readRunStream(runEventStream(h.runtime, run.id, 0, new AbortController().signal));
    expect(streamed).toEqual({ ids: events.map((e) => e.seq), ended: true });
  });

  it('refuses, and stores nothing, for a run that is not there, a claim the answer does not have, a bad body, or a run without an answer', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }, { content: '' }, { content: '' }], synthesizer: [{ content: endpointAnswer() }] });
    const run = await h.run(ENDPOINT_TASK);
    const { verdicts } = h.runtime;
    expect(await refusal(verdicts.record('nope', { claim: 1, verdict: 'correct' }, 'ada'))).toMatchObject({ code: 'run_not_found' });
    expect(await refusal(verdicts.record(run.id, { claim: 2, verdict: 'correct' }, 'ada'))).toEqual({
      code: 'invalid_request',
      message: `claim: run ${run.id}'s answer has 1 claim; there is no claim 2.`,
    });
    expect(await refusal(verdicts.record(run.id, { claim: 0, verdict: 'correct' }, 'ada'))).toMatchObject({ code: 'invalid_request' });
    expect(await refusal(verdicts.record(run.id, { claim: 1, verdict: 'right' }, 'ada'))).toMatchObject({ code: 'invalid_request' });
    expect(await refusal(verdicts.record(run.id, { claim: 1, verdict: 'correct', by: 'mallory' }, 'ada'))).toMatchObject({ code: 'invalid_request' });
    expect(await refusal(verdicts.record(run.id, { claim: 1, verdict: 'correct', note: 'x'.repeat(2001) }, 'ada'))).toMatchObject({ code: 'invalid_request' });
    expect(await h.runtime.store.events(run.id)).toEqual(run.events);

    const failed = await h.run('Something the planner cannot plan', { maxRounds: 1 });
    expect(failed.view.status).toBe('failed');
    expect(await refusal(verdicts.record(failed.id, { claim: null, verdict: 'incorrect' }, 'ada'))).toMatchObject({ code: 'invalid_request', message: `Run ${failed.id} has no answer to judge.` });
    expect(await h.runtime.store.getRun(failed.id)).toMatchObject({ humanVerdicts: 0, lastSeq: failed.events.length });
  });

  it('refuses a verdict on a run that has not ended', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts'), delayMs: 2_000 }], synthesizer: [{ content: endpointAnswer() }] });
    const { id } = await h.runtime.registry.start({ task: ENDPOINT_TASK });
    expect(await refusal(h.runtime.verdicts.record(id, { claim: null, verdict: 'correct' }, 'ada'))).toMatchObject({ code: 'run_not_finished' });
    h.runtime.registry.cancel(id);
    await h.runtime.registry.waitFor(id);
    expect((await h.runtime.store.events(id)).some((e) => e.type === 'human_verdict')).toBe(false);
  });

  it('appends verdicts given at once to one run one after another, none lost', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    const run = await h.run(ENDPOINT_TASK);
    const people = ['a', 'b', 'c', 'd', 'e', 'f'];
    await Promise.all(people.map((by) => h!.runtime.verdicts.record(run.id, { claim: 1, verdict: 'correct' }, by)));
    const events = await h.runtime.store.events(run.id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(foldRun(events).humanVerdicts.current.map((v) => v.by).sort()).toEqual(people);
    expect(await h.runtime.store.getRun(run.id)).toMatchObject({ humanVerdicts: people.length });
  });
});

describe('three people on one run', () => {
  const FOUR_CLAIMS = answer(
    ['one', 'two', 'three', 'four'].map((n) => ({ text: `Claim ${n} of the endpoint.`, citations: [{ path: 'src/config.ts', startLine: 1, endLine: 1, quote: n }] })),
  );

  it('keep a verdict each per claim; kappa for each pair and alpha for the group are the hand-worked values; a disputed claim is settled by someone, and the queue hands the run to k people', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: FOUR_CLAIMS }] });
    const run = await h.run(ENDPOINT_TASK);
    expect(run.view.check?.claims).toHaveLength(4);
    const { verdicts, store } = h.runtime;
    // The worked example of test/unit/lib/people-agreement.test.ts: ada c c i c, bo c i i c, cy c c u -.
    // Worked by hand there: kappa ada-bo 1/2, ada-cy 2/5, bo-cy 1/7; alpha 11/31.
    const given: [string, number, 'correct' | 'incorrect' | 'unsure'][] = [
      ['ada', 1, 'correct'], ['bo', 1, 'correct'], ['cy', 1, 'correct'],
      ['ada', 2, 'correct'], ['bo', 2, 'incorrect'], ['cy', 2, 'correct'],
      ['ada', 3, 'incorrect'], ['bo', 3, 'incorrect'], ['cy', 3, 'correct'],
      ['ada', 4, 'correct'], ['bo', 4, 'correct'],
    ];
    for (const [by, claim, verdict] of given) await verdicts.record(run.id, { claim, verdict }, by);
    // cy changes their mind on claim 3: theirs is replaced, nobody else's.
    await verdicts.record(run.id, { claim: 3, verdict: 'unsure' }, 'cy');

    const view = foldRun(await store.events(run.id));
    expect(view.humanVerdicts.current.filter((v) => v.claim === 3).map((v) => [v.by, v.verdict])).toEqual([
      ['ada', 'incorrect'],
      ['bo', 'incorrect'],
      ['cy', 'unsure'],
    ]);
    const agreement = peopleAgreement(peopleClaimsOf(run.id, view));
    expect(agreement.claims).toBe(4);
    const kappa = Object.fromEntries(agreement.pairs.map((p) => [p.people.join('-'), p.kappa.value]));
    expect(Object.keys(kappa)).toEqual(['ada-bo', 'ada-cy', 'bo-cy']);
    expect(kappa['ada-bo']).toBeCloseTo(1 / 2, 12);
    expect(kappa['ada-cy']).toBeCloseTo(2 / 5, 12);
    expect(kappa['bo-cy']).toBeCloseTo(1 / 7, 12);
    expect(agreement.alpha.value).toBeCloseTo(11 / 31, 12);
    expect(agreement.disagreements.map((d) => d.claim)).toEqual([2, 3]);
    expect(await store.getRun(run.id)).toMatchObject({ humanVerdicts: 12, humanReviewers: ['ada', 'bo', 'cy'] });

    // Settling: refused where nobody disagrees, recorded with who settled it where people do.
    expect(await refusal(verdicts.settle(run.id, { claim: 1, verdict: 'incorrect' }, 'dee'))).toMatchObject({ code: 'claim_not_disputed' });
    const settled = await verdicts.settle(run.id, { claim: 2, verdict: 'incorrect', note: 'The file has no such line.' }, 'dee');
    expect(settled).toMatchObject({ type: 'verdict_settled', claim: 2, verdict: 'incorrect', by: 'dee' });
    const after = foldRun(await store.events(run.id));
    expect(toResult(run.id, after).humanVerdicts.settled).toEqual([expect.objectContaining({ claim: 2, verdict: 'incorrect', by: 'dee', note: 'The file has no such line.' })]);
    expect(peopleAgreement(peopleClaimsOf(run.id, after)).disagreements.map((d) => [d.claim, d.standing])).toEqual([
      [3, { basis: 'majority', verdict: 'incorrect' }],
      [2, { basis: 'settled', verdict: 'incorrect', by: 'dee' }],
    ]);
    // A settlement is nobody's verdict: the people's own stand as given, and the settler is no reviewer of the run.
    expect(after.humanVerdicts.current).toHaveLength(11);
    expect(await store.getRun(run.id)).toMatchObject({ humanReviewers: ['ada', 'bo', 'cy'] });

    // The queue: a run is someone's to review while fewer than k people judged it, and never again once they have.
    const queue = async (person: string, reviewers: number) => (await store.listRuns({ limit: 10, reviewQueue: { person, reviewers } })).map((r) => r.id);
    expect(await queue('dee', 3)).toEqual([]);
    expect(await queue('dee', 4)).toEqual([run.id]);
    expect(await queue('ada', 4)).toEqual([]);
  });
});
