/**
 * 1. Overhead ratio: a 4-step plan with one re-plan against a fake Ollama
 * whose every call takes 200 ms. ratio = run wall time / sum of model call
 * times (calls x 200 ms, the time the model itself is given). Warm bridge,
 * warm process: the first runs are discarded.
 *
 * The target figure streams each reply over its 200 ms as a model does, so
 * read-ahead can overlap reads with the plan's generation. Two variants run
 * alternately with it, so a busy machine slows all three alike: read-ahead
 * off (what read-ahead saves), and every reply as one burst at 200 ms
 * (nothing can overlap: the engine's whole cost shows).
 */
import { startExternalFake } from './lib/fake';
import { copyWorkspace, removeDir } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput } from './lib/report';
import { benchRuntime, callCount, modelMs, type BenchRuntime } from './lib/runtime';
import { replanScript, TASK, type ReplyShape } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';

const MODEL_MS = 200;
const args = benchArgs();
const warmup = args.quick ? 1 : 3;
/**
 * Runs of the same scenario with an instant model before any is timed, as in
 * the engine measurement: V8 compiles the engine's code for about 150 runs,
 * and a process that has run a few runs only is still paying for that.
 */
const instantWarmup = args.quick ? 1 : 150;
const iterations = args.quick ? 2 : 15;

interface Variant {
  key: string;
  shape: ReplyShape;
  bench: BenchRuntime;
  ratios: number[];
  overheads: number[];
  clientModel: number[];
}

const fake = await startExternalFake();
const workspace = copyWorkspace();
const variant = (key: string, shape: ReplyShape, readAhead: boolean): Variant => ({
  key,
  shape,
  bench: benchRuntime({ ollamaUrl: fake.url, workspace, env: { PLANSCOPE_READ_AHEAD: String(readAhead) } }),
  ratios: [],
  overheads: [],
  clientModel: [],
});
const variants = [variant('streamed', 'streamed', true), variant('noReadAhead', 'streamed', false), variant('burst', 'burst', true)];
let calls = 0;
let attempts = 0;
try {
  for (const v of variants) {
    await fake.setScript(replanScript(0, v.shape));
    for (let i = 0; i < instantWarmup; i++) {
      const run = await v.bench.run(TASK);
      if (run.view.status !== 'completed') throw new Error(`${v.key} warm-up run ${i} ended ${run.view.status}: ${JSON.stringify(run.view.error)}`);
    }
  }
  for (let i = 0; i < warmup + iterations; i++) {
    for (const v of variants) {
      await fake.setScript(replanScript(MODEL_MS, v.shape));
      const run = await v.bench.run(TASK);
      if (run.view.status !== 'completed') throw new Error(`${v.key} run ${i} ended ${run.view.status}: ${JSON.stringify(run.view.error)}`);
      calls = callCount(run.events);
      attempts = run.view.rounds.length;
      if (i < warmup) continue;
      const nominal = calls * MODEL_MS;
      v.ratios.push(run.wallMs / nominal);
      v.overheads.push(run.wallMs - nominal);
      v.clientModel.push(modelMs(run.events));
    }
  }
} finally {
  await Promise.all(variants.map((v) => v.bench.close()));
  await fake.close();
  removeDir(workspace);
}
if (attempts !== 2) throw new Error(`expected one re-plan (2 rounds), saw ${attempts}`);
const [streamed, noReadAhead, burst] = variants.map((v) => ({ ...v, ratio: summarize(v.ratios), overhead: summarize(v.overheads) })) as [
  Variant & Stats,
  Variant & Stats,
  Variant & Stats,
];
type Stats = { ratio: ReturnType<typeof summarize>; overhead: ReturnType<typeof summarize> };
log(
  `overhead ratio median ${streamed.ratio.median.toFixed(3)} (read-ahead off ${noReadAhead.ratio.median.toFixed(3)}, ` +
    `burst replies ${burst.ratio.median.toFixed(3)}) over ${iterations} runs each (${calls} calls of ${MODEL_MS} ms)`,
);
writeOutput(args, {
  name: 'overhead',
  figures: [
    atMost(
      'overhead.ratio',
      `Overhead ratio, 4 steps + re-plan, ${MODEL_MS} ms streamed model calls (median)`,
      round(streamed.ratio.median, 3),
      1.02,
      'x',
    ),
    info('overhead.ratio.p95', 'Overhead ratio p95', round(streamed.ratio.p95, 3), 'x'),
    info('overhead.ms', 'Wall time minus model time (median)', round(streamed.overhead.median, 1), 'ms'),
    info('overhead.noReadAhead', 'Same with read-ahead off (PLANSCOPE_READ_AHEAD=false) (median)', round(noReadAhead.ratio.median, 3), 'x'),
    info('overhead.burst', 'Same with every reply as one burst at 200 ms: nothing to overlap (median)', round(burst.ratio.median, 3), 'x'),
  ],
  details: {
    modelCallMs: MODEL_MS,
    calls,
    rounds: attempts,
    iterations,
    warmup,
    instantWarmup,
    variants: Object.fromEntries(
      [streamed, noReadAhead, burst].map((v) => [
        v.key,
        {
          shape: v.shape,
          ratio: roundSummary(v.ratio, 4),
          overheadMs: roundSummary(v.overhead),
          clientMeasuredModelMs: roundSummary(summarize(v.clientModel)),
        },
      ]),
    ),
  },
});
