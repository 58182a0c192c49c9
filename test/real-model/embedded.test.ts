import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RejectionCode, RunErrorCode, StepErrorCode } from '../../lib/codes';
import { DoctorReport, type DoctorCheckId } from '../../lib/doctor';
import type { LlmCallEntry } from '../../lib/call-log';
import { toResult, type RunResult } from '../../lib/result';
import { servedModels } from '../../lib/worker';
import { loadConfig } from '../../server/config';
import { runDoctor } from '../../server/doctor/checks';
import { listEmbeddedModels } from '../../server/llm/embedded/catalog';
import { resolveModel } from '../../server/llm/resolve';
import { ModelCallError, type ModelRequest } from '../../server/llm/types';
import { APP_ROOT, ENDPOINT_TASK, readStep, reasonStep, SAMPLE_WORKSPACE, startHarness, type Harness } from '../support/harness';

/**
 * Runs on real weights in the embedded engine: SmolLM2-135M-Instruct, a
 * model far too small to plan well, so these tests hold the behaviour (each
 * run ends as it may, with its code; every reply through the grammar and the
 * zod schema; the engine's own figures in the call log), never the quality.
 * Each run is kept small: few rounds, short replies, one thread.
 */

const MODELS_DIR = process.env.PLANSCOPE_TEST_MODELS_DIR ?? path.join(os.homedir(), '.cache/planscope/models');
const SMOLLM2 = 'SmolLM2-135M-Instruct.Q4_1';
const GEMMA_BASE = 'gemma-3-270m-q4_k_m';
const MODEL = `embedded:${SMOLLM2}`;

// Loud, never a skip: a machine without the weights has not run these tests.
for (const name of [SMOLLM2, GEMMA_BASE]) {
  const file = path.join(MODELS_DIR, `${name}.gguf`);
  if (!fs.existsSync(file)) {
    throw new Error(`The real-model tests need ${file}: run scripts/fetch-test-models.sh (or set PLANSCOPE_TEST_MODELS_DIR to the folder that holds it).`);
  }
}

const SMALL_RUNS = {
  PLANSCOPE_MODEL: MODEL,
  PLANSCOPE_MODELS_DIR: MODELS_DIR,
  PLANSCOPE_EMBEDDED_THREADS: '1',
  // Two sessions: a reasoning call between two planner calls does not take the planner's evaluated prompt away.
  PLANSCOPE_HOST_CONCURRENCY: '2',
  PLANSCOPE_NUM_CTX: '4096',
  PLANSCOPE_MAX_STEPS: '2',
  PLANSCOPE_GENERAL_MAX_STEPS: '2',
  PLANSCOPE_MAX_EVIDENCE_CHARS: '1500',
  PLANSCOPE_PLANNER_NUM_PREDICT: '120',
  PLANSCOPE_ACTOR_NUM_PREDICT: '80',
  PLANSCOPE_EXECUTOR_NUM_PREDICT: '64',
  PLANSCOPE_SYNTHESIZER_NUM_PREDICT: '160',
  PLANSCOPE_SYNTH_RETRIES: '0',
  PLANSCOPE_REVIEW: 'false',
  PLANSCOPE_CALL_TIMEOUT_MS: '240000',
  PLANSCOPE_RUN_TIMEOUT_MS: '480000',
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({}, SMALL_RUNS);
});

afterAll(async () => {
  await h?.close();
});

async function responseOf(id: string, call: LlmCallEntry): Promise<string> {
  const artifact = (await h.runtime.store.listArtifacts(id)).find((a) => a.name === call.responseArtifact);
  return artifact?.content ?? '';
}

/** A run ends completed, or failed with one of the run codes and a message. */
function endedAsItMay(result: RunResult): void {
  if (result.status === 'completed') return;
  expect(result.status).toBe('failed');
  expect(RunErrorCode.options).toContain(result.error?.code);
  expect(result.error?.message).toBeTruthy();
}

/** Every ended call carries the engine's own figures: the prompt it read, the tokens it made, how long generating and loading took. */
function engineFigures(calls: readonly LlmCallEntry[]): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect(call.model).toBe(MODEL);
    expect(call.host).toBe('embedded');
    if (call.status !== 'ok') {
      expect(['timeout', 'context_exceeded', 'model_error']).toContain(call.error?.code);
      continue;
    }
    expect(call.promptTokens).toBeGreaterThan(0);
    expect(call.evalTokens).toBeGreaterThan(0);
    expect(call.evalTokens).toBeLessThanOrEqual(call.options!.numPredict);
    expect(call.evalDurationNs).toBeGreaterThan(0);
    expect(call.durationMs).toBeGreaterThan(0);
    expect(call.loadDurationNs).not.toBeNull();
    expect(call.cachedPromptTokens).toBeGreaterThanOrEqual(0);
    expect(call.cachedPromptTokens).toBeLessThanOrEqual(call.promptTokens!);
    expect(['stop', 'length']).toContain(call.doneReason);
  }
}

/**
 * What the grammar makes of a reply: when generation stopped of itself, the
 * text is JSON of exactly the schema's keys (a 135M model left alone writes
 * prose); the zod schema then accepted it, or refused it with schema_invalid.
 */
function grammatical(text: string, keys: readonly string[]): Record<string, unknown> {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  expect(Object.keys(parsed).sort()).toEqual([...keys].sort());
  return parsed;
}

function rejectionsHaveCodes(result: RunResult): void {
  for (const round of result.plans) {
    for (const rejection of round.rejections) {
      expect(RejectionCode.options).toContain(rejection.code);
      expect(rejection.message).toBeTruthy();
    }
    for (const failure of round.failures) expect(StepErrorCode.options).toContain(failure.code);
  }
}

let fileRun: { id: string; result: RunResult };

describe('a file-profile run on SmolLM2-135M in the embedded engine', () => {
  it('ends completed or with its code, every plan through the grammar and the schema, the call log holding the engine\'s figures', async () => {
    const { id, result } = await h.run(ENDPOINT_TASK, { maxRounds: 2 });
    fileRun = { id, result };
    endedAsItMay(result);
    expect(result.model).toBe(MODEL);
    engineFigures(result.llmCalls);
    // The run's first call loaded the model, and said how long that took.
    expect(result.llmCalls[0]!.loadDurationNs).toBeGreaterThan(0);

    const planners = result.llmCalls.filter((c) => c.label === 'planner');
    expect(planners.length).toBeGreaterThan(0);
    for (const call of planners.filter((c) => c.status === 'ok' && c.doneReason === 'stop')) {
      const plan = grammatical(await responseOf(id, call), ['steps']);
      for (const step of plan['steps'] as Record<string, unknown>[]) expect(Object.keys(step).sort()).toEqual(['path', 'purpose']);
    }
    for (const round of result.plans) {
      // Parsed by the schema (its steps shown), or refused by it with its code.
      if (round.steps.length === 0) expect(round.rejections.map((r) => r.code)).toContain('schema_invalid');
    }
    rejectionsHaveCodes(result);
    // A re-plan shares its instructions with the planner call before it: the engine did not read them again.
    for (const replan of planners.slice(1).filter((c) => c.status === 'ok')) expect(replan.cachedPromptTokens).toBeGreaterThan(0);
  });

  it('replays the planner call on the same engine, and a second replay reads none of the prompt again', async () => {
    const batch = await h.runtime.replayer.replay(fileRun.id, 'planner#1', { repeat: 2 }, new AbortController().signal);
    expect(batch.total).toBe(2);
    for (const replay of batch.replays) {
      expect(replay.request.model).toBe(MODEL);
      if (replay.status !== 'ok') {
        expect(['timeout', 'model_error']).toContain(replay.error?.code);
        continue;
      }
      expect(replay.reply!.promptTokens).toBe(fileRun.result.llmCalls[0]!.promptTokens);
      expect(replay.reply!.evalTokens).toBeGreaterThan(0);
      expect(replay.judgement?.kind).toBe('plan');
    }
    const [first, second] = batch.replays;
    if (first!.status === 'ok' && second!.status === 'ok') {
      // The whole prompt was the session's already, all but the last token or so, which is read again for its logits.
      expect(second!.reply!.cachedPromptTokens).toBeGreaterThanOrEqual(second!.reply!.promptTokens! - 2);
    }
  });
});

describe('a general-profile run and a fork of it with a reasoning step', () => {
  let general: { id: string; result: RunResult };

  it('ends completed or with its code, its plans through the grammar and the schema', async () => {
    const { id, result } = await h.run(ENDPOINT_TASK, { profile: 'general', maxRounds: 1 });
    general = { id, result };
    endedAsItMay(result);
    engineFigures(result.llmCalls);
    for (const call of result.llmCalls.filter((c) => c.label === 'planner' && c.status === 'ok' && c.doneReason === 'stop')) {
      grammatical(await responseOf(id, call), ['goal', 'steps']);
    }
    rejectionsHaveCodes(result);
  });

  it('runs the given plan\'s reasoning step on the model: its reply through the grammar, the step done or failed with its code', async () => {
    const plan = { goal: 'Find how the endpoint is set', steps: [readStep(1, 'src/config.ts'), reasonStep(2, [1])] };
    const { id } = await h.runtime.registry.start({ fork: { run: general.id, round: 1, plan } });
    const result = toResult(id, await h.runtime.registry.waitFor(id));
    endedAsItMay(result);
    expect(result.forkedFrom).toEqual({ run: general.id, round: 1, stage: 'plan' });
    engineFigures(result.llmCalls);
    const executor = result.llmCalls.find((c) => c.label === 'executor');
    expect(executor).toBeDefined();
    if (executor!.status === 'ok' && executor!.doneReason === 'stop') grammatical(await responseOf(id, executor!), ['reason', 'result', 'status']);
    const reasoning = result.plans[0]!.steps[1]!;
    expect(['done', 'failed']).toContain(reasoning.status);
    if (reasoning.status === 'failed') expect(StepErrorCode.options).toContain(reasoning.code);
  });
});

describe('a ReAct run on SmolLM2-135M', () => {
  it('ends completed or with its code, each turn through the grammar and judged with its codes', async () => {
    const { id, result } = await h.run(ENDPOINT_TASK, { strategy: 'react', maxRounds: 1 });
    endedAsItMay(result);
    engineFigures(result.llmCalls);
    const turns = result.llmCalls.filter((c) => c.label === 'actor');
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.length).toBeLessThanOrEqual(2);
    for (const call of turns.filter((c) => c.status === 'ok' && c.doneReason === 'stop')) grammatical(await responseOf(id, call), ['action', 'path', 'thought']);
    rejectionsHaveCodes(result);
  });
});

describe('planscope doctor on an embedded model', () => {
  const doctor = async (extra: Record<string, string>) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-doctor-'));
    try {
      const report = await runDoctor(loadConfig({ PLANSCOPE_WORKSPACE: SAMPLE_WORKSPACE, PLANSCOPE_DATA_DIR: dataDir, PLANSCOPE_MODELS_DIR: MODELS_DIR, ...extra }, APP_ROOT));
      expect(DoctorReport.parse(report)).toEqual(report);
      return Object.fromEntries(report.checks.map((c) => [c.id, c])) as Record<DoctorCheckId, DoctorReport['checks'][number]>;
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };

  it('finds the file, reads its header, loads it and gets the two-field probe back through the grammar', async () => {
    const checks = await doctor({ PLANSCOPE_MODEL: MODEL });
    expect(checks.ollama_reachable.verdict).toBe('skipped');
    expect(checks.ollama_version.verdict).toBe('skipped');
    expect(checks.model_pulled).toMatchObject({ verdict: 'ok' });
    expect(checks.model_pulled.detail).toContain('Q4_1');
    expect(checks.model_capabilities).toMatchObject({ verdict: 'ok' });
    expect(checks.model_capabilities.detail).toContain('context length 8192');
    expect(checks.structured_output.verdict).toBe('ok');
    expect(['ok', 'warn']).toContain(checks.model_speed.verdict);
    expect(checks.model_speed.detail).toMatch(/tokens\/s/);
  });

  it('fails model_pulled for a file that is not there, and skips what needs it', async () => {
    const checks = await doctor({ PLANSCOPE_MODEL: 'embedded:no-such-model' });
    expect(checks.model_pulled.verdict).toBe('fail');
    expect(checks.model_pulled.detail).toContain(path.join(MODELS_DIR, 'no-such-model.gguf'));
    expect(checks.model_pulled.fix).toContain('models:pull');
    expect(checks.structured_output.verdict).toBe('skipped');
  });
});

describe('the models folder', () => {
  it('is registered as the worker\'s host `embedded`, its models by the names runs take', async () => {
    const worker = await h.runtime.worker;
    expect(worker?.hosts.find((host) => host.host === 'embedded')).toEqual({ host: 'embedded', models: [MODEL, `embedded:${GEMMA_BASE}`], reachable: true });
    expect(servedModels(worker!)).toEqual(expect.arrayContaining(['offline', MODEL]));
  });


  it("lists each GGUF file with its size, quantization, context length and chat template; Gemma 3 270M's base model has none", async () => {
    const listed = await listEmbeddedModels(MODELS_DIR);
    const smol = listed.find((m) => m.name === MODEL);
    const gemma = listed.find((m) => m.name === `embedded:${GEMMA_BASE}`);
    expect(smol).toMatchObject({ quantization: 'Q4_1', contextLength: 8192, architecture: 'llama' });
    expect(smol!.sizeBytes).toBe(fs.statSync(path.join(MODELS_DIR, `${SMOLLM2}.gguf`)).size);
    expect(smol!.chatTemplate).toContain('<|im_start|>');
    expect(gemma).toMatchObject({ quantization: 'Q4_K_M', contextLength: 32768, chatTemplate: null, architecture: 'gemma3' });
  });
});

describe("the embedded Model's failures, each with its code", () => {
  const config = () => loadConfig({ PLANSCOPE_MODELS_DIR: MODELS_DIR, PLANSCOPE_EMBEDDED_THREADS: '1' }, APP_ROOT);
  const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
    label: 'synthesizer',
    input: null,
    prompt: { messages: [{ role: 'user', content: 'Count from one to fifty in words.' }], format: null },
    options: { temperature: 0, numPredict: 64, numCtx: 2048, think: false },
    signal: new AbortController().signal,
    timeoutMs: 120_000,
    ...over,
  });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof ModelCallError ? { code: error.code, message: error.message, partial: error.partial } : error),
    );

  it('model_not_found for a file that is not in the folder, and for a name reaching outside it', async () => {
    expect(await failure(resolveModel('embedded:no-such-model', config()).complete(request()))).toMatchObject({ code: 'model_not_found', message: expect.stringContaining('models:pull') as unknown });
    expect(await failure(resolveModel('embedded:../models/x', config()).complete(request()))).toMatchObject({ code: 'model_not_found' });
  });

  it('context_exceeded for a prompt longer than the context, before anything is generated', async () => {
    const long = request({ prompt: { messages: [{ role: 'user', content: 'the model endpoint '.repeat(400) }], format: null }, options: { temperature: 0, numPredict: 16, numCtx: 512, think: false } });
    expect(await failure(resolveModel(MODEL, config()).complete(long))).toMatchObject({ code: 'context_exceeded', message: expect.stringContaining('512') as unknown });
  });

  it('cancelled when the caller aborts mid-reply, keeping what had streamed; timeout when the call outlives its limit', async () => {
    const model = resolveModel(MODEL, config());
    const controller = new AbortController();
    const cancelled = await failure(model.complete(request({ signal: controller.signal, onContent: () => controller.abort() })));
    expect(cancelled).toMatchObject({ code: 'cancelled' });
    expect((cancelled as { partial: { content: string } }).partial.content).not.toBe('');
    // A limit shorter than any reply: SmolLM2 135M can finish a whole answer within a few hundred milliseconds here.
    const timedOut = await failure(model.complete(request({ timeoutMs: 1, options: { temperature: 0, numPredict: 2000, numCtx: 2048, think: false } })));
    expect(timedOut).toMatchObject({ code: 'timeout', message: expect.stringContaining('did not finish within') as unknown });
  });
});
