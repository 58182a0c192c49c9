/**
 * 9. Tracing overhead. The engine-overhead run of measurement 2 (one 4-step
 * plan through the warm bridge, synthesis, check, review, against a fake
 * Ollama that answers at once), made by two runtimes in turn: one with no
 * OpenTelemetry configured (the SDK is not even loaded), one exporting
 * every run as a trace (OTLP http/protobuf, the default protocol, content
 * capture off) to a receiver in its own process that accepts everything.
 * Overhead per run = wall time minus the time inside the model calls;
 * the figure is tracing-on over tracing-off. Alternating the two runtimes
 * run by run lets a busy machine slow both alike.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startExternalFake } from './lib/fake';
import { copyWorkspace, removeDir } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput } from './lib/report';
import { benchRuntime, modelMs, type BenchRuntime } from './lib/runtime';
import { straightScript, TASK } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';

const args = benchArgs();
const warmup = args.quick ? 2 : 15;
const iterations = args.quick ? 5 : 60;

/** An OTLP/HTTP endpoint that drains every request and answers 200, in its own process. */
async function startSink(): Promise<{ url: string; requests: () => Promise<number>; close: () => void }> {
  const code = `
    let n = 0;
    const server = require('node:http').createServer((req, res) => {
      req.resume();
      req.on('end', () => { n += 1; res.writeHead(200, { 'content-type': 'application/x-protobuf' }); res.end(); });
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    process.on('message', () => process.send(n));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${chunk.toString().trim()}`,
    async requests() {
      child.send('count');
      const [n] = (await once(child, 'message')) as [number];
      return n;
    },
    close: () => child.kill(),
  };
}

interface Variant {
  key: 'off' | 'on';
  bench: BenchRuntime;
  overhead: number[];
  cpu: number[];
}

const fake = await startExternalFake();
const sink = await startSink();
const workspace = copyWorkspace();
const variants: Variant[] = [
  { key: 'off', bench: benchRuntime({ ollamaUrl: fake.url, workspace }), overhead: [], cpu: [] },
  { key: 'on', bench: benchRuntime({ ollamaUrl: fake.url, workspace, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } }), overhead: [], cpu: [] },
];
let exports = 0;
try {
  await variants[1]!.bench.runtime.telemetry.ready;
  await fake.setScript(straightScript(0));
  for (let i = 0; i < warmup + iterations; i++) {
    for (const v of i % 2 === 0 ? variants : [...variants].reverse()) {
      const run = await v.bench.run(TASK);
      if (run.view.status !== 'completed') throw new Error(`${v.key} run ${i} ended ${run.view.status}: ${JSON.stringify(run.view.error)}`);
      if (i < warmup) continue;
      v.overhead.push(run.wallMs - modelMs(run.events));
      v.cpu.push(run.cpuMs);
    }
  }
} finally {
  // Closing exports the spans still batched.
  await Promise.all(variants.map((v) => v.bench.close()));
  exports = await sink.requests();
  sink.close();
  await fake.close();
  removeDir(workspace);
}

const [off, on] = variants.map((v) => ({ overhead: summarize(v.overhead), cpu: summarize(v.cpu) })) as [
  { overhead: ReturnType<typeof summarize>; cpu: ReturnType<typeof summarize> },
  { overhead: ReturnType<typeof summarize>; cpu: ReturnType<typeof summarize> },
];
const ratio = on.overhead.median / off.overhead.median;
log(
  `engine overhead median: tracing off ${off.overhead.median.toFixed(1)} ms, on ${on.overhead.median.toFixed(1)} ms ` +
    `(×${ratio.toFixed(3)}); ${exports} OTLP exports received`,
);
writeOutput(args, {
  name: 'tracing',
  figures: [
    atMost('tracing.ratio', 'Engine overhead per run, tracing on / off (medians)', round(ratio, 3), 1.05, 'x'),
    info('tracing.off', 'Engine overhead per run, tracing off (median)', round(off.overhead.median, 1), 'ms'),
    info('tracing.on', 'Engine overhead per run, tracing on (median)', round(on.overhead.median, 1), 'ms'),
    info('tracing.cpu', 'Process CPU per run, tracing on − off (medians)', round(on.cpu.median - off.cpu.median, 2), 'ms'),
  ],
  details: {
    iterations,
    warmup,
    protocol: 'http/protobuf',
    otlpExports: exports,
    offOverheadMs: roundSummary(off.overhead),
    onOverheadMs: roundSummary(on.overhead),
    offCpuMs: roundSummary(off.cpu),
    onCpuMs: roundSummary(on.cpu),
  },
});
