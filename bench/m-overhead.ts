/**
 * 1. Overhead ratio: a 4-step plan with one re-plan against a fake Ollama
 * whose every call takes 200 ms. ratio = run wall time / sum of model call
 * times (calls x 200 ms, the time the model itself is given). Warm bridge,
 * warm process: the first runs are discarded.
 */
import { startExternalFake } from './lib/fake';
import { copyWorkspace, removeDir } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput } from './lib/report';
import { benchRuntime, callCount, modelMs } from './lib/runtime';
import { replanScript, TASK } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';

const MODEL_MS = 200;
const args = benchArgs();
const warmup = args.quick ? 1 : 3;
const iterations = args.quick ? 2 : 15;

const fake = await startExternalFake();
const workspace = copyWorkspace();
const bench = benchRuntime({ ollamaUrl: fake.url, workspace });
const ratios: number[] = [];
const walls: number[] = [];
const overheads: number[] = [];
const clientModel: number[] = [];
let calls = 0;
let attempts = 0;
try {
  for (let i = 0; i < warmup + iterations; i++) {
    await fake.setScript(replanScript(MODEL_MS));
    const run = await bench.run(TASK);
    if (run.view.status !== 'completed') throw new Error(`run ${i} ended ${run.view.status}: ${JSON.stringify(run.view.error)}`);
    calls = callCount(run.events);
    attempts = run.view.rounds.length;
    if (i < warmup) continue;
    const nominal = calls * MODEL_MS;
    ratios.push(run.wallMs / nominal);
    walls.push(run.wallMs);
    overheads.push(run.wallMs - nominal);
    clientModel.push(modelMs(run.events));
  }
} finally {
  await bench.close();
  await fake.close();
  removeDir(workspace);
}
if (attempts !== 2) throw new Error(`expected one re-plan (2 rounds), saw ${attempts}`);
const ratio = summarize(ratios);
log(`overhead ratio median ${ratio.median.toFixed(3)} over ${iterations} runs (${calls} calls of ${MODEL_MS} ms)`);
writeOutput(args, {
  name: 'overhead',
  figures: [
    atMost('overhead.ratio', `Overhead ratio, 4-step plan + 1 re-plan, ${MODEL_MS} ms model (median)`, round(ratio.median, 3), 1.05, 'x'),
    info('overhead.ratio.p95', 'Overhead ratio p95', round(ratio.p95, 3), 'x'),
    info('overhead.ms', 'Wall time minus model time (median)', round(summarize(overheads).median, 1), 'ms'),
  ],
  details: {
    modelCallMs: MODEL_MS,
    calls,
    rounds: attempts,
    iterations,
    warmup,
    ratio: roundSummary(ratio, 4),
    wallMs: roundSummary(summarize(walls)),
    overheadMs: roundSummary(summarize(overheads)),
    clientMeasuredModelMs: roundSummary(summarize(clientModel)),
  },
});
