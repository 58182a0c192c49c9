/**
 * 8. Token economy. Runs each task of bench/tasks.json (a plan with one
 * failing step, then the corrected plan) through the real engine and reads
 * the planner prompts Ollama actually received (the fake records requests).
 * Reports prompt characters and tokens per planning call, how much of the
 * round-2 prompt is new, and the common prefix of the round-1 and round-2
 * prompts as the chat template lays them out (system, then user): the part
 * Ollama can keep in its KV cache between rounds. Then the shipped
 * evaluation suite (evals/sample-suite.json): each task planned once (the
 * files it must read as the plan) and answered, for the size of the
 * planner's and the synthesizer's prompts a real evaluation sends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startExternalFake } from './lib/fake';
import { APP_ROOT, BENCH_ROOT, copyWorkspace, removeDir } from './lib/paths';
import { atLeast, benchArgs, info, log, writeOutput } from './lib/report';
import { benchRuntime } from './lib/runtime';
import { ANSWER, planText } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';
import { countTokens, loadTokenizer, tokenizerName } from './lib/tokens';

interface TaskSpec {
  task: string;
  round1: string[];
  round2: string[];
}
interface Message {
  role: string;
  content: string;
}

const args = benchArgs();
const spec = JSON.parse(fs.readFileSync(path.join(BENCH_ROOT, 'tasks.json'), 'utf8')) as { tasks: TaskSpec[] };
const tasks = args.quick ? spec.tasks.slice(0, 2) : spec.tasks;
const suite = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'evals', 'sample-suite.json'), 'utf8')) as {
  tasks: { id: string; task: string; mustRead?: string[] }[];
};
const suiteTasks = args.quick ? suite.tasks.slice(0, 2) : suite.tasks;
/** A task that must read nothing (it asks for a secret) still plans one harmless read. */
const FALLBACK_READ = 'src/config.ts';
await loadTokenizer();

/** The prompt as a chat template lays it out: what a prompt cache can match. */
function rendered(messages: Message[]): string {
  return messages.map((m) => `<|${m.role}|>\n${m.content}\n`).join('');
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return a.slice(0, i);
}

const fake = await startExternalFake();
const workspace = copyWorkspace();
const bench = benchRuntime({ ollamaUrl: fake.url, workspace, env: { PLANSCOPE_REVIEW: 'false' } });
const size = (text: string) => ({ chars: text.length, tokens: countTokens(text) });
const messagesOf = (body: unknown) => (body as { messages: Message[] }).messages;
const isPlanner = (body: unknown) => JSON.stringify((body as { format?: unknown }).format ?? {}).includes('"steps"');
const suiteRows: { id: string; planner: { chars: number; tokens: number }; synthesizer: { chars: number; tokens: number } }[] = [];
const rows: {
  task: string;
  round1: { chars: number; tokens: number };
  round2: { chars: number; tokens: number };
  prefix: { chars: number; tokens: number };
  newInRound2: { chars: number; tokens: number };
  synthesizer: { chars: number; tokens: number };
}[] = [];
try {
  for (const t of tasks) {
    await fake.setScript({ planner: [{ content: planText(t.round1) }, { content: planText(t.round2) }], synthesizer: [{ content: ANSWER }] });
    await fake.clearRequests();
    const run = await bench.run(t.task);
    if (run.view.rounds.length !== 2) throw new Error(`"${t.task}": expected a re-plan, saw ${run.view.rounds.length} round(s)`);
    const chats = (await fake.requests()).filter((r) => r.path === '/api/chat');
    const planners = chats.filter((r) => isPlanner(r.body)).map((r) => messagesOf(r.body));
    const synth = chats.filter((r) => !isPlanner(r.body)).map((r) => messagesOf(r.body))[0];
    if (planners.length !== 2 || !synth) throw new Error(`"${t.task}": expected 2 planner calls and a synthesizer call`);
    const [r1, r2] = planners.map(rendered) as [string, string];
    const prefix = commonPrefix(r1, r2);
    const s1 = size(r1);
    const s2 = size(r2);
    const p = size(prefix);
    rows.push({
      task: t.task,
      round1: s1,
      round2: s2,
      prefix: p,
      newInRound2: { chars: s2.chars - p.chars, tokens: s2.tokens - p.tokens },
      synthesizer: size(rendered(synth)),
    });
  }
  for (const t of suiteTasks) {
    const reads = (t.mustRead?.length ? t.mustRead : [FALLBACK_READ]).slice(0, 4);
    await fake.setScript({ planner: [{ content: planText(reads) }], synthesizer: [{ content: ANSWER }] });
    await fake.clearRequests();
    const run = await bench.run(t.task);
    if (run.view.status !== 'completed') throw new Error(`suite task ${t.id}: the run ended ${run.view.status}`);
    const chats = (await fake.requests()).filter((r) => r.path === '/api/chat').map((r) => r.body);
    const planner = chats.find(isPlanner);
    const synth = chats.find((body) => !isPlanner(body));
    if (!planner || !synth) throw new Error(`suite task ${t.id}: expected a planner and a synthesizer call`);
    suiteRows.push({ id: t.id, planner: size(rendered(messagesOf(planner))), synthesizer: size(rendered(messagesOf(synth))) });
  }
} finally {
  await bench.close();
  await fake.close();
  removeDir(workspace);
}

const col = (pick: (r: (typeof rows)[number]) => number) => summarize(rows.map(pick));
const r1Tokens = col((r) => r.round1.tokens);
const r2Tokens = col((r) => r.round2.tokens);
const newTokens = col((r) => r.newInRound2.tokens);
const prefixShare = col((r) => r.prefix.tokens / r.round2.tokens);
const suitePlanner = summarize(suiteRows.map((r) => r.planner.tokens));
const suiteSynth = summarize(suiteRows.map((r) => r.synthesizer.tokens));
log(`planner prompt ~${r1Tokens.median} tokens; re-plan adds ~${newTokens.median} new; common prefix ${(prefixShare.median * 100).toFixed(0)}% of round 2`);
writeOutput(args, {
  name: 'tokens',
  figures: [
    info('tokens.planner.chars', 'Planner prompt, round 1 (median chars)', col((r) => r.round1.chars).median, 'chars'),
    info('tokens.planner.tokens', 'Planner prompt, round 1 (median tokens)', r1Tokens.median, 'tokens', tokenizerName),
    info('tokens.replan.tokens', 'Planner prompt, round 2 (median tokens)', r2Tokens.median, 'tokens'),
    info('tokens.replan.new', 'Round 2: tokens not in the common prefix (median)', newTokens.median, 'tokens'),
    atLeast('tokens.prefix.share', 'Round 2 prompt covered by the round-1 prefix (median)', round(prefixShare.median, 3), 0.5, 'x', 'stable prefix: instructions and file list come before anything that changes'),
    info('tokens.synth.tokens', 'Synthesizer prompt (median tokens)', col((r) => r.synthesizer.tokens).median, 'tokens'),
    info('tokens.suite.planner', `Shipped eval suite, ${suiteRows.length} tasks: planner prompt (median tokens)`, suitePlanner.median, 'tokens', `max ${suitePlanner.max}`),
    info('tokens.suite.synth', 'Shipped eval suite: synthesizer prompt (median tokens)', suiteSynth.median, 'tokens', `max ${suiteSynth.max}`),
  ],
  details: {
    tokenizer: tokenizerName,
    tasks: rows.length,
    round1Tokens: roundSummary(r1Tokens),
    round2Tokens: roundSummary(r2Tokens),
    newTokensInRound2: roundSummary(newTokens),
    prefixShareOfRound2: roundSummary(prefixShare, 3),
    perTask: rows,
    suite: { tasks: suiteRows.length, plannerTokens: roundSummary(suitePlanner), synthesizerTokens: roundSummary(suiteSynth), perTask: suiteRows },
  },
});
