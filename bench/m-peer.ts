/**
 * 4. Peer, side by side in the same run: planscope's loop and the same loop
 * written with LangGraph.js (bench/peers/langgraph-plan-execute.ts), against
 * the same fake Ollama and the same MCP bridge. Each implementation is
 * bundled and runs under plain node in its own process
 * (bench/peers/runner-*.ts); the processes stay up together and runs
 * alternate between them (ours, peer, peer+MemorySaver, ours, ...), so a
 * busy machine slows all alike. Reported as ratios ours/peer, lower is better
 * for us: overhead with an instant model (the whole run time), overhead with
 * a 200 ms model (wall - model time), and peak RSS of the process.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { bundle } from '../scripts/bundle.mjs';
import { startExternalFake } from './lib/fake';
import { APP_ROOT } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput } from './lib/report';
import { round, roundSummary, summarize } from './lib/stats';
import type { FinalReply, RunReply } from './peers/runner-core';

const SLOW_MS = 200;
const args = benchArgs();
const counts = args.quick ? { warmup: 1, instant: 2, slow: 1 } : { warmup: 5, instant: 40, slow: 12 };

interface Runner {
  impl: string;
  child: ChildProcessWithoutNullStreams;
  next(): Promise<Record<string, unknown>>;
  instant: number[];
  slow: number[];
  calls: number;
  final: FinalReply | null;
  stderr: string;
}

function startRunner(impl: string, file: string, fakeUrl: string): Runner {
  const child = spawn(process.execPath, [file, '--impl', impl, '--fake', fakeUrl], { cwd: APP_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const runner: Runner = {
    impl,
    child,
    instant: [],
    slow: [],
    calls: 0,
    final: null,
    stderr: '',
    async next() {
      const line = await lines.next();
      if (line.done) throw new Error(`${impl} runner ended: ${runner.stderr.slice(-1200)}`);
      return JSON.parse(line.value) as Record<string, unknown>;
    },
  };
  child.stderr.on('data', (c: Buffer) => (runner.stderr += c.toString()));
  return runner;
}

async function runOne(runner: Runner, delayMs: number): Promise<RunReply> {
  runner.child.stdin.write(`run ${delayMs}\n`);
  return (await runner.next()) as unknown as RunReply;
}

/** A runner bundled under bench/.cache/ and run under plain node: no TypeScript loader in the measured process. */
const runnerBundle = (name: string) => bundle({ entry: path.join(APP_ROOT, 'bench', 'peers', `${name}.ts`), outfile: path.join(APP_ROOT, 'bench', '.cache', `${name}.mjs`) });
const oursBundle = await runnerBundle('runner-ours');
const peerBundle = await runnerBundle('runner-langgraph');
const fake = await startExternalFake();
// Quick mode (a smoke test) leaves the MemorySaver variant out.
const runners = [
  startRunner('ours', oursBundle, fake.url),
  startRunner('langgraph', peerBundle, fake.url),
  ...(args.quick ? [] : [startRunner('langgraph-memsaver', peerBundle, fake.url)]),
];
try {
  for (const r of runners) await r.next(); // ready
  for (let i = 0; i < counts.warmup; i++) for (const r of runners) await runOne(r, 0);
  for (let i = 0; i < counts.instant; i++) for (const r of runners) r.instant.push((await runOne(r, 0)).wallMs);
  for (let i = 0; i < counts.slow; i++) {
    for (const r of runners) {
      const reply = await runOne(r, SLOW_MS);
      r.calls = reply.calls;
      r.slow.push(reply.wallMs - reply.calls * SLOW_MS);
    }
  }
  for (const r of runners) {
    r.child.stdin.write('done\n');
    r.final = (await r.next()) as unknown as FinalReply;
  }
} finally {
  for (const r of runners) if (r.child.exitCode === null) r.child.kill();
  await fake.close();
}

const [ours, peer, saver] = runners as [Runner, Runner, Runner | undefined];
const med = (xs: number[]) => summarize(xs).median;
const instantRatio = med(ours.instant) / med(peer.instant);
const slowRatio = med(ours.slow) / med(peer.slow);
const memRatio = ours.final!.maxRssKb / peer.final!.maxRssKb;
const mb = (kb: number) => round(kb / 1024, 1);
log(
  `peer: instant ${med(ours.instant).toFixed(1)} vs ${med(peer.instant).toFixed(1)} ms, ` +
    `overhead@${SLOW_MS} ${med(ours.slow).toFixed(1)} vs ${med(peer.slow).toFixed(1)} ms, ` +
    `peak RSS ${mb(ours.final!.maxRssKb)} vs ${mb(peer.final!.maxRssKb)} MB`,
);
const describe = (r: Runner) => ({
  calls: r.calls,
  instantRunMs: roundSummary(summarize(r.instant)),
  overheadAt200Ms: roundSummary(summarize(r.slow)),
  peakRssMb: mb(r.final!.maxRssKb),
  endHeapUsedMb: round(r.final!.endHeapUsedBytes / 1048576, 1),
});
writeOutput(args, {
  name: 'peer',
  figures: [
    atMost('peer.overhead.instant', 'Overhead vs LangGraph.js peer, instant model: ours/peer (median run time)', round(instantRatio, 3), 1, 'x',
      `${med(ours.instant).toFixed(1)} ms vs ${med(peer.instant).toFixed(1)} ms`),
    atMost('peer.overhead.200ms', `Overhead vs peer, ${SLOW_MS} ms model: ours/peer (median wall - model time)`, round(slowRatio, 3), 1, 'x',
      `${med(ours.slow).toFixed(1)} ms vs ${med(peer.slow).toFixed(1)} ms`),
    atMost('peer.memory', 'Peak memory vs peer: ours/peer (peak RSS of the process)', round(memRatio, 3), 1, 'x',
      `${mb(ours.final!.maxRssKb)} MB vs ${mb(peer.final!.maxRssKb)} MB`),
    ...(saver ? [info('peer.memsaver.instant', 'Peer + MemorySaver checkpointer, instant model (median run time)', round(med(saver.instant), 1), 'ms')] : []),
  ],
  details: {
    scenario: '4-step plan, one step fails, re-plan, answer: 3 model calls each; ours without the Reviewer (the peer has none)',
    peer: 'bench/peers/langgraph-plan-execute.ts (the LangGraph.js tutorial shape; its header says where it departs)',
    iterations: counts,
    ours: describe(ours),
    langgraph: describe(peer),
    langgraphMemorySaver: saver ? describe(saver) : null,
  },
});
