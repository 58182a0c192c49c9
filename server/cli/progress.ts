import { callEntry, type LlmCallEntry } from '../../lib/call-log';
import { formatCallOptions } from '../../lib/call-options';
import type { RunEvent } from '../../lib/events';
import { aggregateCalls, runDurationMs } from '../../lib/result';
import { resumeText, resumeTitle } from '../../lib/resume';
import { roundOutcomes } from '../../lib/round-outcome';
import type { RunState } from '../../lib/run-state';

/**
 * One readable line per event for the CLI's live view; null for events not
 * worth a line. `view` is the run's fold with the event in it.
 */
export function progressLine(e: RunEvent, view: RunState): string | null {
  switch (e.type) {
    case 'run_created':
      return [
        `run  ${e.task}\n     model ${e.model}${e.baseline ? ' (offline baseline, no LLM)' : ''} · ${e.strategy} · workspace ${e.workspace}`,
        ...(e.forkedFrom ? [`     forked from run ${e.forkedFrom.run} round ${e.forkedFrom.round}${e.forkedFrom.stage === 'answer' ? ', answer stage' : ''}`] : []),
      ].join('\n');
    case 'work_carried':
      return `⤷    carried from the parent: ${e.observations.length} observation${e.observations.length === 1 ? '' : 's'}${e.conclusions.length ? `, ${e.conclusions.length} conclusion${e.conclusions.length === 1 ? '' : 's'}` : ''}`;
    case 'run_resumed':
      return `↻    ${resumeTitle(e)}: ${resumeText(e)}`;
    case 'run_waiting':
      return `⧗    waiting (${e.reason}): ${e.message}`;
    case 'llm_call_started':
      return `…    ${e.call} ${e.model}${e.round ? ` (round ${e.round})` : ''}${e.options ? ` · ${formatCallOptions(e.options)}` : ''}`;
    case 'llm_call_finished': {
      const call = view.llmCalls.find((c) => c.call === e.call);
      return call ? callLine(callEntry(call, false)) : null;
    }
    case 'plan_proposed':
      return [
        `plan round ${e.round}:${e.goal ? ` ${e.goal}` : ''}`,
        ...e.steps.map((s, i) => `     ${s.id ?? i + 1}. ${s.path} — ${s.purpose}${s.dependsOn?.length ? ` (after ${s.dependsOn.join(', ')})` : ''}`),
      ].join('\n');
    case 'plan_rejected':
      return [
        `✗    round ${e.round} rejected:`,
        ...e.rejections.map((r) => `     ${r.step === null ? 'plan' : `step ${r.step + 1}`}: ${r.code}: ${r.message}`),
      ].join('\n');
    case 'plan_accepted':
      return `✓    round ${e.round} accepted (${e.steps.length} step${e.steps.length === 1 ? '' : 's'})`;
    case 'approval_requested':
      return `⧗    round ${e.round} waits for approval of its plan`;
    case 'approval_decided':
      return e.decision === 'reject'
        ? `✗    round ${e.round} rejected by ${e.by}: ${e.note ?? ''}`
        : `✓    round ${e.round} ${e.decision === 'approve' ? 'approved' : `edited (${e.steps?.length ?? 0} steps) and approved`} by ${e.by}`;
    case 'step_cached':
      return `=    ${e.path} reused from ${e.fromRun ? `run ${e.fromRun} ` : ''}round ${e.fromRound}`;
    case 'step_finished':
      return `✓    ${e.path} read: ${e.observation.bytes} bytes, ${e.observation.lines} lines, sha256 ${e.observation.sha256.slice(0, 12)}`;
    case 'step_reasoned':
      return e.status === 'done' ? `✓    reasoning: ${e.result.split('\n')[0]}` : `✗    reasoning failed: ${e.reason}`;
    case 'step_failed':
      return `✗    ${e.path} ${e.code}: ${e.message}`;
    case 'replan_requested':
      return `↻    re-plan after round ${e.fromRound}: ${e.reasons.map((r) => r.code).join(', ')}`;
    case 'answer_ready':
      return `\nanswer:\n${e.text}`;
    case 'answer_checked':
      return [
        `check: ${e.supported}/${e.total} claims supported${e.flagged ? `, ${e.flagged} flagged plan_as_fact` : ''} (grounding ${Math.round(e.groundingScore * 100)}%)`,
        ...e.claims.flatMap((c, i) => (c.flags ?? []).map((f) => `     claim ${i + 1}: ${f.code} — ${f.message}`)),
      ].join('\n');
    case 'answer_reviewed':
      if (e.error) return `review: not done (${e.error.code}: ${e.error.message})`;
      return e.reviews.length === 0
        ? null
        : ['review:', ...e.reviews.map((r) => `     claim ${r.claim}: ${r.verdict} — ${r.reason}`)].join('\n');
    case 'run_finished':
      return `\n${e.status}${e.error ? `: ${e.error.code}: ${e.error.message}` : ''}`;
    default:
      return null;
  }
}

/**
 * One line per LLM call, as a plan-and-execute agent's log has it: where it
 * went, how much went in and came out, when it started and ended, why the
 * model stopped, and the artifacts holding its prompt, reply and thinking.
 * `[planner#1] round=1 host=http://127.0.0.1:11434 model=qwen3:8b in=812 chars
 * out=143 chars thinking=0 chars tokens_in=370 tokens_out=32
 * start=10:22:15.120 end=10:22:18.070 duration=2.95s done_reason=stop
 * prompt=planner#1.prompt.json response=planner#1.response.txt` (one line).
 */
export function callLine(c: LlmCallEntry): string {
  const count = (n: number | null) => (n === null ? '-' : String(n));
  return [
    `[${c.call}]`,
    ...(c.round === null ? [] : [`round=${c.round}`]),
    `host=${c.host ?? '-'}`,
    `model=${c.model}`,
    `in=${c.promptChars} chars`,
    `out=${count(c.responseChars)} chars`,
    `thinking=${count(c.thinkingChars)} chars`,
    `tokens_in=${count(c.promptTokens)}`,
    `tokens_out=${count(c.evalTokens)}`,
    `start=${clockTime(c.startedAt)}`,
    `end=${c.finishedAt === null ? '-' : clockTime(c.finishedAt)}`,
    `duration=${c.durationMs === null ? '-' : `${(c.durationMs / 1000).toFixed(2)}s`}`,
    `done_reason=${c.doneReason ?? '-'}`,
    `status=${c.status}`,
    `prompt=${c.promptArtifact}`,
    ...(c.responseArtifact === null ? [] : [`response=${c.responseArtifact}`]),
    ...(c.thinkingArtifact === null ? [] : [`thinking_text=${c.thinkingArtifact}`]),
    ...(c.modelLoading ? [`model_loading=true load=${c.loadDurationNs === null ? '-' : `${(c.loadDurationNs / 1e9).toFixed(2)}s`}`] : []),
    ...(c.evidenceShrunk ? [`evidence_shrunk=${c.evidenceShrunk.fromChars}->${c.evidenceShrunk.toChars} chars`] : []),
    ...(c.truncated ? ['truncated=true'] : []),
    ...(c.thinkBlockMoved ? ['think_block_moved=true'] : []),
    ...(c.error === null ? [] : [`error=${c.error.code}: ${c.error.message}`]),
  ].join(' ');
}

/** `10:22:15.120`, in this machine's time zone, as a console log reads. */
function clockTime(iso: string): string {
  const t = new Date(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}.${String(t.getMilliseconds()).padStart(3, '0')}`;
}

/** Each round, why it ended, and what was rejected or failed in it. */
export function roundsSummary(view: RunState): string {
  return roundOutcomes(view)
    .flatMap((r) => [
      `round ${r.round}: ${r.ended ?? 'not ended'}`,
      ...r.rejections.map((x) => `     rejected ${x.step === null ? 'plan' : `step ${x.step + 1}`}: ${x.code}: ${x.message}`),
      ...r.failures.map((f) => `     failed step ${f.step + 1} ${f.path}: ${f.code}: ${f.message}`),
    ])
    .join('\n');
}

/** The LLM call table and the closing summary: calls, characters in and out, durations. */
export function summaryTable(view: RunState): string {
  const header = ['call', 'model', 'in chars', 'out chars', 'in tok', 'out tok', 'ms', 'done_reason'];
  const rows = view.llmCalls.map((c) => [
    c.call,
    c.model,
    String(c.promptChars),
    String(c.responseChars ?? '-'),
    String(c.promptTokens ?? '-'),
    String(c.evalTokens ?? '-'),
    c.durationMs === null ? '-' : String(Math.round(c.durationMs)),
    c.error ? c.error.code : (c.doneReason ?? '-'),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  const agg = aggregateCalls(view.llmCalls);
  const spread = (s: { avg: number; min: number; max: number } | null) =>
    s ? `avg ${Math.round(s.avg)} max ${Math.round(s.max)} min ${Math.round(s.min)}` : '-';
  return [
    fmt(header),
    ...rows.map(fmt),
    '',
    roundsSummary(view),
    '',
    `${agg.calls} LLM calls · input chars ${spread(agg.promptChars)} · output chars ${spread(agg.responseChars)} · ms ${spread(agg.durationMs)}`,
    `status ${view.status} · attempts ${view.rounds.length} · ${Math.round(runDurationMs(view) ?? 0)} ms`,
  ].join('\n');
}
