import { checkPlanPath } from '../../lib/policy';
import type { BridgeOutcome, FileRead, FileStat } from '../mcp/types';
import type { RunContext } from './context';

/** A tool call begun for a step before its plan was accepted, and when it ran. */
export type EarlyCall =
  | { kind: 'read'; startedAt: number; outcome: Promise<Timed<BridgeOutcome<FileRead>>> }
  | { kind: 'stat'; startedAt: number; outcome: Promise<Timed<BridgeOutcome<FileStat>>> };

export interface Timed<T> {
  result: T;
  finishedAt: number;
}

/**
 * Starts each step's tool call while the planner is still streaming its
 * plan: a read, or for a file an earlier round read, the stat that decides
 * whether that observation can be reused. Only a step whose path passes the
 * same policy the Validator applies is started, never more than the plan's
 * step limit nor more at once than the step concurrency. Every call is
 * spent from the run's tool budget, but never the last plan's worth of it:
 * a rejected plan's calls are dropped, and that waste must not be what
 * leaves the next plan without calls. Nothing is recorded until the plan is
 * accepted and a step claims its call.
 */
export class ReadAhead {
  private readonly calls = new Map<string, EarlyCall>();
  private inFlight = 0;

  constructor(private readonly ctx: RunContext) {}

  /** A step as the stream shows it: unvalidated, possibly malformed. */
  offer(step: unknown): void {
    const requested = typeof step === 'object' && step !== null && 'path' in step ? step.path : null;
    if (typeof requested !== 'string' || this.ctx.signal.aborted) return;
    const verdict = checkPlanPath(requested, this.ctx.pathPolicy);
    if (!verdict.ok || this.calls.has(verdict.path)) return;
    if (this.calls.size >= this.ctx.planLimits.maxSteps || this.inFlight >= this.ctx.limits.stepConcurrency) return;
    if (!this.ctx.budget.trySpend(this.ctx.planLimits.maxSteps)) return;
    this.calls.set(verdict.path, this.start(verdict.path));
  }

  /** The early call for `path`, handed out once: a second step naming the path calls for itself. */
  claim(path: string): EarlyCall | undefined {
    const call = this.calls.get(path);
    this.calls.delete(path);
    return call;
  }

  private start(path: string): EarlyCall {
    const startedAt = performance.now();
    const { bridge } = this.ctx;
    return this.ctx.work.observations.has(path)
      ? { kind: 'stat', startedAt, outcome: this.timed(bridge.statFile(path)) }
      : { kind: 'read', startedAt, outcome: this.timed(bridge.readFile(path)) };
  }

  /** Never rejects: a call no step claims must not surface as an unhandled rejection. */
  private async timed<T>(call: Promise<BridgeOutcome<T>>): Promise<Timed<BridgeOutcome<T>>> {
    this.inFlight += 1;
    try {
      const result = await call.catch((error: unknown): BridgeOutcome<T> => ({
        ok: false,
        code: 'tool_error',
        message: `the call failed: ${error instanceof Error ? error.message : String(error)}`,
      }));
      return { result, finishedAt: performance.now() };
    } finally {
      this.inFlight -= 1;
    }
  }
}
