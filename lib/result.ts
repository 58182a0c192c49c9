import { attemptsOf, type LlmCallView, type RunStatus, type RunState } from './run-state';
import type { PlanProfile, ProposedStep, Rejection, Strategy } from './events';
import type { ErrorInfo } from './codes';
import type { AnswerCheck } from './checker';

/** Spread of one measure over a run's LLM calls, as in the second write-up's closing log line. */
export interface Spread {
  avg: number;
  min: number;
  max: number;
}

export interface LlmAggregates {
  calls: number;
  promptChars: Spread | null;
  responseChars: Spread | null;
  durationMs: Spread | null;
  promptTokens: number;
  evalTokens: number;
}

/** The Result of DESIGN.md's contract (CLI `--json`, `GET /api/runs/:id`), plus the run's own aggregates. */
export interface RunResult {
  id: string;
  task: string;
  status: RunStatus;
  model: string;
  baseline: boolean;
  workspace: string;
  strategy: Strategy;
  attempts: number;
  profile: PlanProfile;
  plans: { round: number; goal?: string; steps: ProposedStep[]; rejections: Rejection[] }[];
  completed: Record<string, { sha256: string; bytes: number; round: number }>;
  answer: string | null;
  check: AnswerCheck | null;
  review: RunState['review'];
  error: ErrorInfo | null;
  createdAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  llm: LlmAggregates;
}

export function toResult(id: string, view: RunState): RunResult {
  const completed: RunResult['completed'] = {};
  for (const [path, o] of Object.entries(view.observations)) {
    completed[path] = { sha256: o.sha256, bytes: o.bytes, round: o.round };
  }
  return {
    id,
    task: view.task,
    status: view.status,
    model: view.model,
    baseline: view.baseline,
    workspace: view.workspace,
    strategy: view.strategy,
    attempts: attemptsOf(view),
    profile: view.profile,
    plans: view.rounds.map((r) => ({
      round: r.round,
      ...(r.goal === null ? {} : { goal: r.goal }),
      steps: r.proposed ?? [],
      rejections: r.rejections,
    })),
    completed,
    answer: view.answer,
    check: view.check,
    review: view.review,
    error: view.error,
    createdAt: view.createdAt === null ? null : new Date(view.createdAt).toISOString(),
    finishedAt: view.finishedAt === null ? null : new Date(view.finishedAt).toISOString(),
    durationMs: runDurationMs(view),
    llm: aggregateCalls(view.llmCalls),
  };
}

export function runDurationMs(view: RunState, now?: number): number | null {
  if (view.createdAt === null) return null;
  const end = view.finishedAt ?? now;
  return end === undefined ? null : end - view.createdAt;
}

export function aggregateCalls(calls: readonly LlmCallView[]): LlmAggregates {
  const finished = calls.filter((c) => c.finishedAt !== null);
  return {
    calls: calls.length,
    promptChars: spread(calls.map((c) => c.promptChars)),
    responseChars: spread(finished.map((c) => c.responseChars ?? 0)),
    durationMs: spread(finished.map((c) => c.durationMs ?? 0)),
    promptTokens: sum(calls.map((c) => c.promptTokens ?? 0)),
    evalTokens: sum(calls.map((c) => c.evalTokens ?? 0)),
  };
}

function spread(values: number[]): Spread | null {
  if (values.length === 0) return null;
  return { avg: sum(values) / values.length, min: Math.min(...values), max: Math.max(...values) };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
