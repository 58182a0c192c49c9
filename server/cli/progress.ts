import { formatCallOptions } from '../../lib/call-options';
import type { RunEvent } from '../../lib/events';
import { aggregateCalls, runDurationMs } from '../../lib/result';
import type { RunState } from '../../lib/run-state';

/** One readable line per event for the CLI's live view; null for events not worth a line. */
export function progressLine(e: RunEvent): string | null {
  switch (e.type) {
    case 'run_created':
      return `run  ${e.task}\n     model ${e.model}${e.baseline ? ' (offline baseline, no LLM)' : ''} · ${e.strategy} · workspace ${e.workspace}`;
    case 'run_waiting':
      return `⧗    waiting (${e.reason}): ${e.message}`;
    case 'llm_call_started':
      return `…    ${e.call} ${e.model}${e.round ? ` (round ${e.round})` : ''}${e.options ? ` · ${formatCallOptions(e.options)}` : ''}`;
    case 'llm_call_finished':
      return e.ok
        ? `✓    ${e.call} ${Math.round(e.durationMs)} ms, ${e.responseChars} chars, done_reason ${e.doneReason ?? '-'}`
        : `✗    ${e.call} ${e.error?.code}: ${e.error?.message}`;
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
    case 'step_cached':
      return `=    ${e.path} reused from round ${e.fromRound}`;
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
    `${agg.calls} LLM calls · input chars ${spread(agg.promptChars)} · output chars ${spread(agg.responseChars)} · ms ${spread(agg.durationMs)}`,
    `status ${view.status} · attempts ${view.rounds.length} · ${Math.round(runDurationMs(view) ?? 0)} ms`,
  ].join('\n');
}
