/**
 * 13. A real model: SmolLM2-135M-Instruct in the embedded llama.cpp engine,
 * on one thread (the machine is shared; two threads collapse under load).
 *
 * - Throughput ratio: generated tokens per second of wall time through
 *   planscope's embedded call (prompt rendering and counting, the grammar
 *   from planscope's schema mapping, session choice) over the same prompt,
 *   grammar and limits driven through node-llama-cpp directly, on a context
 *   of the same size and threads. Pairs alternate which goes first, and each
 *   prompt opens with a fresh line so neither side finds it evaluated.
 * - Overhead ratio: a whole file-profile run on the sample workspace, wall
 *   time over the time its model calls took, after a run not counted. The model plans badly; the run
 *   ends as it may, and the ratio holds for whatever it did.
 * - Round 2's prompt: of each re-plan's prompt tokens, the share evaluated
 *   anew (not served by the session's cache of round 1's prefix).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LlamaChat, type ChatHistoryItem } from 'node-llama-cpp';
import type { RunEvent } from '../lib/events';
import { engine, loadModel } from '../server/llm/embedded/engine';
import { createEmbeddedModel } from '../server/llm/embedded/model';
import { HostSlots } from '../server/llm/host-slots';
import type { ModelRequest } from '../server/llm/types';
import { copyWorkspace, removeDir } from './lib/paths';
import { atLeast, atMost, benchArgs, info, log, writeOutput, type Figure } from './lib/report';
import { benchRuntime, modelMs } from './lib/runtime';
import { TASK } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';

const args = benchArgs();
const MODELS_DIR = process.env.PLANSCOPE_TEST_MODELS_DIR ?? path.join(os.homedir(), '.cache/planscope/models');
const MODEL = 'SmolLM2-135M-Instruct.Q4_1';
const FILE = path.join(MODELS_DIR, `${MODEL}.gguf`);
const THREADS = 1;
const CONTEXT = 2048;
const MAX_TOKENS = args.quick ? 16 : 96;
const PAIRS = args.quick ? 1 : 6;
const RUNS = args.quick ? 1 : 2;
/** Runs first, not counted: the MCP bridge's start and the model's load are cold-start costs, not a run's overhead. */
const WARMUP_RUNS = args.quick ? 0 : 1;
const TIMEOUT_MS = 240_000;

/** A schema already in the grammar's subset, so both sides generate under the same grammar. */
const SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' }, files: { type: 'array', items: { type: 'string' } } },
  required: ['summary', 'files'],
  additionalProperties: false,
};
const SYSTEM = 'You describe software projects. Reply with JSON: a long summary, then the files worth reading.';
const userText = (i: number) => `Request ${i} (${Date.now()}).\nDescribe how a command-line tool that asks a local model questions about notes is usually configured: its host, its model, its timeouts.`;

if (!fs.existsSync(FILE)) {
  writeOutput(args, { name: 'real-model', figures: [], details: {}, skipped: [`no ${FILE}: run scripts/fetch-test-models.sh (or set PLANSCOPE_TEST_MODELS_DIR)`] });
  process.exit(0);
}

const throughput = await measureThroughput();
const runs = await measureRuns();

const ratio = summarize(throughput.ratios);
const overhead = summarize(runs.ratios);
const anew = runs.anew.length ? summarize(runs.anew) : null;
log(
  `throughput ratio median ${ratio.median.toFixed(3)} over ${PAIRS} pairs (planscope ${summarize(throughput.planscope).median.toFixed(1)} tokens/s, direct ${summarize(throughput.direct).median.toFixed(1)}); ` +
    `overhead ratio median ${overhead.median.toFixed(3)} over ${RUNS} runs; ` +
    (anew ? `round 2 evaluated ${(anew.max * 100).toFixed(0)} % of its prompt anew at most (${anew.n} re-plans)` : 'no run re-planned'),
);
const figures: Figure[] = [
  atLeast('realModel.throughputRatio', `Tokens/s through planscope's embedded call ÷ node-llama-cpp directly, ${MODEL}, ${THREADS} thread (median)`, round(ratio.median, 3), 0.97, 'x'),
  info('realModel.tokensPerSecond', 'Generated tokens per second of wall time through planscope (median)', round(summarize(throughput.planscope).median, 1), 'tokens/s'),
  atMost('realModel.overheadRatio', `Overhead ratio of a file-profile run on ${MODEL}: wall time ÷ model call time (median)`, round(overhead.median, 3), 1.01, 'x'),
  {
    ...atMost(
      'realModel.round2Anew',
      "Share of a re-plan's prompt tokens evaluated anew, not served from round 1's cached prefix (the worst re-plan)",
      anew ? round(anew.max, 3) : null,
      0.5,
      'x',
    ),
    better: 'lower',
  },
];
writeOutput(args, {
  name: 'real-model',
  figures,
  details: {
    model: MODEL,
    threads: THREADS,
    maxTokens: MAX_TOKENS,
    throughput: { pairs: PAIRS, ratio: roundSummary(ratio, 4), planscopeTokensPerSecond: roundSummary(summarize(throughput.planscope)), directTokensPerSecond: roundSummary(summarize(throughput.direct)) },
    runs: { count: RUNS, overheadRatio: roundSummary(overhead, 4), outcomes: runs.outcomes, round2Anew: anew && roundSummary(anew, 3) },
  },
  ...(anew === null && { skipped: ['round 2: no run re-planned, so no re-plan prompt to measure'] }),
});

async function measureThroughput(): Promise<{ ratios: number[]; planscope: number[]; direct: number[] }> {
  const model = createEmbeddedModel({ model: MODEL, modelsDir: MODELS_DIR, threads: THREADS, loadTimeoutMs: TIMEOUT_MS, hostSlots: { slots: new HostSlots(), limit: 1 } });
  const llama = await engine();
  const { model: weights, chatWrapper } = await loadModel(FILE, TIMEOUT_MS);
  const context = await weights.createContext({ contextSize: CONTEXT, sequences: 1, threads: THREADS });
  const grammar = await llama.createGrammarForJsonSchema(SCHEMA as Parameters<typeof llama.createGrammarForJsonSchema>[0]);
  const chat = new LlamaChat({ contextSequence: context.getSequence(), chatWrapper });

  const viaPlanscope = async (i: number): Promise<number> => {
    const request: ModelRequest = {
      label: 'planner',
      input: null,
      prompt: { messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: userText(i) }], format: SCHEMA },
      options: { temperature: 0, numPredict: MAX_TOKENS, numCtx: CONTEXT, think: false },
      signal: new AbortController().signal,
      timeoutMs: TIMEOUT_MS,
    };
    const started = performance.now();
    const reply = await model.complete(request);
    return (reply.evalTokens ?? 0) / ((performance.now() - started) / 1000);
  };
  const direct = async (i: number): Promise<number> => {
    const history: ChatHistoryItem[] = [
      { type: 'system', text: SYSTEM },
      { type: 'user', text: userText(i) },
    ];
    const meter = chat.sequence.tokenMeter.getState();
    const started = performance.now();
    await chat.generateResponse(history, { grammar, maxTokens: MAX_TOKENS, temperature: 0 });
    return chat.sequence.tokenMeter.diff(meter).usedOutputTokens / ((performance.now() - started) / 1000);
  };

  // One of each first: the model's load and each side's first context are not what is compared.
  await viaPlanscope(-1);
  await direct(-2);
  const out = { ratios: [] as number[], planscope: [] as number[], direct: [] as number[] };
  for (let i = 0; i < PAIRS; i++) {
    const [p, d] = i % 2 === 0 ? [await viaPlanscope(2 * i), await direct(2 * i + 1)] : await (async () => {
      const d = await direct(2 * i + 1);
      return [await viaPlanscope(2 * i), d];
    })();
    out.planscope.push(p);
    out.direct.push(d);
    out.ratios.push(p / d);
  }
  await context.dispose();
  return out;
}

async function measureRuns(): Promise<{ ratios: number[]; anew: number[]; outcomes: string[] }> {
  const workspace = copyWorkspace();
  const bench = benchRuntime({
    // No Ollama is asked: every call goes to the embedded engine.
    ollamaUrl: 'http://127.0.0.1:9',
    workspace,
    env: {
      PLANSCOPE_MODEL: `embedded:${MODEL}`,
      PLANSCOPE_MODELS_DIR: MODELS_DIR,
      PLANSCOPE_EMBEDDED_THREADS: String(THREADS),
      // Two sessions, as the real-model tests use: a call between two planner calls leaves the planner's evaluated prompt in place.
      PLANSCOPE_HOST_CONCURRENCY: '2',
      PLANSCOPE_NUM_CTX: '4096',
      PLANSCOPE_MAX_STEPS: '3',
      PLANSCOPE_MAX_EVIDENCE_CHARS: '1500',
      PLANSCOPE_PLANNER_NUM_PREDICT: args.quick ? '48' : '160',
      PLANSCOPE_SYNTHESIZER_NUM_PREDICT: args.quick ? '48' : '200',
      PLANSCOPE_SYNTH_RETRIES: '0',
      PLANSCOPE_REVIEW: 'false',
      PLANSCOPE_CALL_TIMEOUT_MS: String(TIMEOUT_MS),
      PLANSCOPE_RUN_TIMEOUT_MS: String(2 * TIMEOUT_MS),
    },
  });
  const out = { ratios: [] as number[], anew: [] as number[], outcomes: [] as string[] };
  try {
    for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
      const run = await bench.run(TASK);
      if (i < WARMUP_RUNS) continue;
      out.outcomes.push(run.view.status === 'completed' ? 'completed' : `${run.view.status}: ${run.view.error?.code ?? '?'}`);
      const model = modelMs(run.events);
      if (model > 0) out.ratios.push(run.wallMs / model);
      out.anew.push(...replanAnew(run.events));
    }
  } finally {
    await bench.close();
    removeDir(workspace);
  }
  return out;
}

/** For each planner call after a run's first: the share of its prompt tokens the engine evaluated anew. */
function replanAnew(events: RunEvent[]): number[] {
  const planner = events.filter((e): e is Extract<RunEvent, { type: 'llm_call_finished' }> => e.type === 'llm_call_finished' && e.call.startsWith('planner#'));
  return planner
    .slice(1)
    .filter((e) => e.ok && e.promptTokens !== null && e.promptTokens > 0 && e.cachedPromptTokens !== undefined)
    .map((e) => (e.promptTokens! - e.cachedPromptTokens!) / e.promptTokens!);
}
