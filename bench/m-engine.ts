/**
 * 2. Engine overhead, absolute. A whole run (one 4-step plan, 4 reads
 * through the warm MCP bridge, synthesis, check, review) against a fake
 * Ollama that answers at once (separate process). Engine overhead = run wall
 * time minus the time spent inside the model calls (as the engine measures
 * each call around `model.complete`): what is left is plan parsing,
 * validation, the reads, event appends, prompt building and synthesis
 * wiring. Also: one `read_file` round trip of a 10 KB file on a warm bridge,
 * and the process CPU time per run, start to final state (less sensitive to
 * a busy machine; the bench reading the log back afterwards is not in it).
 * Measured after 150 runs of warm-up: V8 goes on compiling the engine's
 * code for about that long (docs/performance.md, issue 28), and a figure
 * taken sooner measures the compiler, not the engine. What the first runs
 * of a process cost is reported too (`engine.cpu.cold`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { connectBridge } from '../server/mcp/bridge-client';
import { startExternalFake } from './lib/fake';
import { APP_ROOT, copyWorkspace, removeDir } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput } from './lib/report';
import { benchRuntime, callCount, modelMs } from './lib/runtime';
import { straightScript, TASK } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';

const args = benchArgs();
const warmup = args.quick ? 2 : 150;
/** The first runs of the process, whose CPU time is the cold figure. */
const COLD_RUNS = args.quick ? 2 : 15;
const iterations = args.quick ? 5 : 60;
const readIterations = args.quick ? 50 : 1000;

const fake = await startExternalFake();
const workspace = copyWorkspace();
const bench = benchRuntime({ ollamaUrl: fake.url, workspace });
const overhead: number[] = [];
const walls: number[] = [];
const cpu: number[] = [];
const coldCpu: number[] = [];
let calls = 0;
let events = 0;
let reads = 0;
try {
  await fake.setScript(straightScript(0));
  for (let i = 0; i < warmup + iterations; i++) {
    const run = await bench.run(TASK);
    if (run.view.status !== 'completed') throw new Error(`run ${i} ended ${run.view.status}: ${JSON.stringify(run.view.error)}`);
    calls = callCount(run.events);
    events = run.events.length;
    reads = run.events.filter((e) => e.type === 'step_finished').length;
    if (i < COLD_RUNS) coldCpu.push(run.cpuMs);
    if (i < warmup) continue;
    walls.push(run.wallMs);
    overhead.push(run.wallMs - modelMs(run.events));
    cpu.push(run.cpuMs);
  }
} finally {
  await bench.close();
  await fake.close();
}

// read_file round trip, 10 KB, warm bridge (the same bundled bridge the engine spawns).
const tenKb = `${'const value = "planscope benchmark line";'.padEnd(99, ' ')}\n`.repeat(100);
fs.writeFileSync(path.join(workspace, 'ten-kb.ts'), tenKb);
const bridge = await connectBridge({ workspace, appRoot: APP_ROOT, maxFileBytes: 256 * 1024, maxListEntries: 2000 });
const roundTrips: number[] = [];
try {
  for (let i = 0; i < readIterations + 50; i++) {
    const started = performance.now();
    const read = await bridge.readFile('ten-kb.ts');
    const took = performance.now() - started;
    if (!read.ok) throw new Error(`read_file failed: ${read.message}`);
    if (read.value.bytes !== 10_000) throw new Error(`expected 10000 bytes, got ${read.value.bytes}`);
    if (i >= 50) roundTrips.push(took);
  }
} finally {
  await bridge.close();
  removeDir(workspace);
}

const o = summarize(overhead);
const rt = summarize(roundTrips);
log(`engine overhead median ${o.median.toFixed(1)} ms/run; read_file 10 KB median ${rt.median.toFixed(2)} ms`);
writeOutput(args, {
  name: 'engine',
  figures: [
    atMost('engine.overhead', 'Engine overhead per run, instant model, warm bridge (median)', round(o.median, 1), 5, 'ms'),
    info('engine.overhead.p95', 'Engine overhead per run p95', round(o.p95, 1), 'ms'),
    atMost('engine.cpu', `Process CPU time per run, after ${warmup} runs of warm-up (median)`, round(summarize(cpu).median, 1), 8, 'ms'),
    info('engine.cpu.cold', `Process CPU time per run, the first ${COLD_RUNS} runs of the process (median)`, round(summarize(coldCpu).median, 1), 'ms'),
    atMost('engine.readFile', 'read_file round trip, 10 KB, warm bridge (median)', round(rt.median, 2), 2, 'ms'),
    info('engine.readFile.p95', 'read_file round trip p95', round(rt.p95, 2), 'ms'),
  ],
  details: {
    iterations,
    warmup,
    callsPerRun: calls,
    eventsPerRun: events,
    readsPerRun: reads,
    overheadMs: roundSummary(o),
    wallMs: roundSummary(summarize(walls)),
    cpuMs: roundSummary(summarize(cpu)),
    coldCpuMs: roundSummary(summarize(coldCpu)),
    readFile10KbMs: roundSummary(rt, 3),
  },
});
