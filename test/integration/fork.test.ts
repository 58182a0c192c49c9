import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toResult } from '../../lib/result';
import type { RunState } from '../../lib/run-state';
import { isRequestError, type RequestError } from '../../server/errors';
import { handle } from '../../server/http/respond';
import { ENDPOINT_TASK, endpointAnswer, generalPlan, plan, readStep, reasonStep, startHarness, until, type Harness } from '../support/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const fileStep = (p: string) => ({ purpose: `Read ${p}`, path: p });

/** A parent whose round 1 reads src/config.ts and fails on a missing file, and whose round 2 reads src/llm.ts. */
async function twoRoundParent(harness: Harness) {
  return harness.run(ENDPOINT_TASK, { maxRounds: 3 });
}

const twoRoundScript = () => ({
  planner: [{ content: plan('src/config.ts', 'src/missing.ts') }, { content: plan('src/llm.ts') }],
  synthesizer: [{ content: endpointAnswer() }, { content: endpointAnswer() }],
});

async function fork(harness: Harness, request: object): Promise<{ id: string; view: RunState }> {
  const { id } = await harness.runtime.registry.start(request);
  return { id, view: await harness.runtime.registry.waitFor(id) };
}

async function refusal(harness: Harness, request: object): Promise<RequestError> {
  const error = await harness.runtime.registry.start(request).then(
    () => null,
    (e: unknown) => e,
  );
  if (!isRequestError(error)) throw new Error(`expected a refused request, got ${String(error)}`);
  return error;
}

const chatRoles = (harness: Harness) =>
  harness.fake.requests
    .filter((r) => r.path === '/api/chat')
    .map((r) => JSON.stringify((r.body as { format?: unknown }).format ?? '').includes('"steps"'));

describe('a fork from a round', () => {
  it("carries round 1's observations as cached steps and reads its own plan's new files, leaving the parent's log as it was", async () => {
    h = await startHarness(twoRoundScript());
    const parent = await twoRoundParent(h);
    expect(parent.result.status).toBe('completed');
    const parentEvents = JSON.stringify(await h.runtime.store.events(parent.id));
    const plannerCallsBefore = chatRoles(h).filter(Boolean).length;

    const { id, view } = await fork(h, { fork: { run: parent.id, round: 2, plan: { steps: [fileStep('src/config.ts'), fileStep('src/index.ts')] } } });
    const result = toResult(id, view);

    expect(result.status).toBe('completed');
    expect(result.forkedFrom).toEqual({ run: parent.id, round: 2, stage: 'plan' });
    expect(result.task).toBe(ENDPOINT_TASK);
    expect(result.plans.map((p) => p.round)).toEqual([2]);
    const [kept, read] = result.plans[0]!.steps;
    expect(kept).toMatchObject({ path: 'src/config.ts', status: 'cached', fromRound: 1, fromRun: parent.id });
    expect(read).toMatchObject({ path: 'src/index.ts', status: 'done' });
    expect(read!.fromRun).toBeUndefined();
    // The given plan took the planner's place; the parent's round-2 read reached the fork only as round 2 of the parent, not as carried work.
    expect(chatRoles(h).filter(Boolean).length).toBe(plannerCallsBefore);
    expect(result.plans[0]!.call).toBeUndefined();
    expect(Object.keys(result.completed).sort()).toEqual(['src/config.ts', 'src/index.ts']);
    expect(result.completed['src/config.ts']!.round).toBe(1);
    // The carried observation's text is the fork's own artifact.
    const carried = view.observations['src/config.ts']!;
    expect(carried.carriedFrom).toBe(parent.id);
    expect((await h.runtime.store.getArtifact(id, carried.artifact))?.content).toContain('OLLAMA_HOST');
    expect(result.check?.groundingScore).toBe(1);

    expect(JSON.stringify(await h.runtime.store.events(parent.id))).toBe(parentEvents);
    expect((await h.runtime.store.listRuns({ limit: 10, forkedFrom: parent.id })).map((r) => [r.id, r.forkedFromRound])).toEqual([[id, 2]]);
  });

  it('reads a carried file again when it has changed since the parent read it, and says so', async () => {
    h = await startHarness(twoRoundScript());
    const parent = await twoRoundParent(h);
    const config = path.join(h.workspace, 'src/config.ts');
    fs.appendFileSync(config, '\n// changed after the parent read it\n');
    const { id, view } = await fork(h, { fork: { run: parent.id, round: 2, plan: { steps: [fileStep('src/config.ts')] } } });
    expect(toResult(id, view).plans[0]!.steps[0]).toMatchObject({ status: 'done' });
    const events = await h.runtime.store.events(id);
    const reread = events.find((e) => e.type === 'step_finished' && e.path === 'src/config.ts');
    expect(reread).toMatchObject({ replacedSha256: parent.result.completed['src/config.ts']!.sha256 });
  });

  it("starts from the parent's own plan of the round when none is given, and from a rejected plan once it is fixed", async () => {
    h = await startHarness({
      planner: [{ content: plan('../outside.txt') }, { content: plan('src/config.ts') }],
      synthesizer: [{ content: endpointAnswer() }, { content: endpointAnswer() }, { content: endpointAnswer() }],
    });
    const parent = await h.run(ENDPOINT_TASK, { maxRounds: 2 });
    expect(parent.result.plans[0]!.ended).toBe('rejected');

    const again = await fork(h, { fork: { run: parent.id, round: 2 } });
    expect(toResult(again.id, again.view).plans[0]!.steps.map((s) => s.path)).toEqual(['src/config.ts']);

    const fixed = await fork(h, { fork: { run: parent.id, round: 1, plan: { steps: [fileStep('src/llm.ts')] } } });
    const result = toResult(fixed.id, fixed.view);
    expect(result.status).toBe('completed');
    expect(result.plans.map((p) => p.ended)).toEqual(['accepted']);
    expect(result.completed['src/llm.ts']!.round).toBe(1);
  });

  it("reuses the parent's reads and conclusions in a general plan", async () => {
    const outcome = { content: JSON.stringify({ status: 'done', result: 'It is OLLAMA_HOST.', reason: '' }) };
    h = await startHarness({
      planner: [generalPlan(readStep(1, 'src/config.ts'), reasonStep(2, [1]), readStep(3, 'src/missing.ts')), generalPlan(readStep(1, 'src/llm.ts'))],
      executor: [outcome],
      synthesizer: [{ content: endpointAnswer() }, { content: endpointAnswer() }],
    });
    const parent = await h.run(ENDPOINT_TASK, { profile: 'general', maxRounds: 3 });
    expect(parent.result.plans.map((p) => p.ended)).toEqual(['replanned_after_failure', 'accepted']);
    const given = { goal: 'Find how the endpoint is set', steps: [readStep(1, 'src/config.ts'), reasonStep(2, [1]), readStep(3, 'src/index.ts')] };
    const { id, view } = await fork(h, { fork: { run: parent.id, round: 2, plan: given } });
    const steps = toResult(id, view).plans[0]!.steps;
    expect(steps.map((s) => [s.status, s.fromRun ?? null])).toEqual([
      ['cached', parent.id],
      ['cached', parent.id],
      ['done', null],
    ]);
    expect((await h.runtime.store.events(id)).find((e) => e.type === 'step_cached' && e.index === 1)).toMatchObject({ reused: 'reasoning', fromRound: 1 });
  });

  it('answers again from the same observations at the answer stage', async () => {
    h = await startHarness(twoRoundScript());
    const parent = await twoRoundParent(h);
    const plannerCallsBefore = chatRoles(h).filter(Boolean).length;
    const { id, view } = await fork(h, { fork: { run: parent.id, stage: 'answer' } });
    const result = toResult(id, view);
    expect(result.status).toBe('completed');
    expect(result.forkedFrom).toEqual({ run: parent.id, round: 2, stage: 'answer' });
    expect(result.plans).toEqual([]);
    expect(Object.keys(result.completed).sort()).toEqual(['src/config.ts', 'src/llm.ts']);
    expect(chatRoles(h).filter(Boolean).length).toBe(plannerCallsBefore);
    expect(result.llmCalls.map((c) => c.label)).toEqual(['synthesizer', 'reviewer']);
  });
});

describe('a fork that cannot be made creates nothing', () => {
  it('refuses a plan the Validator rejects, with the rejections as a run records them', async () => {
    h = await startHarness(twoRoundScript());
    const parent = await twoRoundParent(h);
    const before = await h.runtime.store.listRuns({ limit: 100 });
    const error = await refusal(h, { fork: { run: parent.id, round: 2, plan: { steps: [fileStep('.env.local'), fileStep('../etc/passwd')] } } });
    expect(error.code).toBe('plan_rejected');
    expect(error.status).toBe(422);
    expect(error.rejections?.map((r) => [r.step, r.code])).toEqual([
      [0, 'path_denied'],
      [1, 'path_outside_workspace'],
    ]);
    // What POST /api/runs answers: the status and body the route's error mapping makes of it.
    const response = await handle(async () => {
      await h!.runtime.registry.start({ fork: { run: parent.id, round: 2, plan: { steps: [fileStep('.env.local')] } } });
      return Response.json({});
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      error: { code: 'plan_rejected', message: expect.stringContaining('path_denied') as unknown, rejections: [expect.objectContaining({ step: 0, code: 'path_denied' })] },
    });
    const schema = await refusal(h, { fork: { run: parent.id, round: 2, plan: { steps: [{ path: 'src/config.ts' }] } } });
    expect(schema.rejections).toEqual([expect.objectContaining({ step: 0, code: 'schema_invalid' })]);
    expect(await h.runtime.store.listRuns({ limit: 100 })).toEqual(before);
  });

  it('refuses an unknown run, an unknown round and a parent still running', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }, { hang: true }], synthesizer: [{ content: endpointAnswer() }] });
    const parent = await h.run(ENDPOINT_TASK);
    expect((await refusal(h, { fork: { run: 'no-such-run', round: 1 } })).code).toBe('run_not_found');
    const round = await refusal(h, { fork: { run: parent.id, round: 5 } });
    expect([round.code, round.status]).toEqual(['round_not_found', 404]);
    expect((await refusal(h, { fork: { run: parent.id } })).code).toBe('invalid_request');

    const { id: running } = await h.runtime.registry.start({ task: ENDPOINT_TASK });
    await until('the second run to ask its planner', () => h!.fake.requests.filter((r) => r.path === '/api/chat').length >= 4);
    const busy = await refusal(h, { fork: { run: running, round: 1 } });
    expect([busy.code, busy.status]).toEqual(['run_not_finished', 409]);
    h.runtime.registry.cancel(running);
    await h.runtime.registry.waitFor(running);
    expect((await h.runtime.store.listRuns({ limit: 100 })).length).toBe(2);
  });
});
