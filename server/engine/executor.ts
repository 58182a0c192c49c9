import type { ObservationMeta, ProposedStep, ReplanReason } from '../../lib/events';
import type { FileRead } from '../mcp/types';
import { RunStop, stopIfAborted, type RunContext } from './context';
import { runDag } from './dag';

/** An observation the executor obtained, kept across rounds and keyed by path. */
export interface Completed {
  meta: ObservationMeta;
  text: string;
  round: number;
}

/** Counts tool calls against the run's budget; running out ends the run explicitly. */
export class ToolBudget {
  private used = 0;
  constructor(private readonly limit: number) {}

  spend(): void {
    if (this.used >= this.limit) {
      throw new RunStop('tool_budget_exceeded', `The run used its whole tool budget of ${this.limit} calls.`);
    }
    this.used += 1;
  }
}

/**
 * The Executor: one MCP tool call per step, through the bridge only.
 * Independent steps run concurrently up to `stepConcurrency`. A path already
 * completed in an earlier round is not read again while its size and mtime
 * are unchanged; a changed file is read again and the change recorded.
 * Returns the failures that call for a re-plan.
 */
export async function executeSteps(
  ctx: RunContext,
  round: number,
  steps: ProposedStep[],
  completed: Map<string, Completed>,
  budget: ToolBudget,
): Promise<ReplanReason[]> {
  const failures: ReplanReason[] = [];
  await runDag(
    steps.length,
    () => [],
    ctx.limits.stepConcurrency,
    async (index) => {
      const failure = await readStep(ctx, round, index, steps[index]!.path, completed, budget);
      if (failure) failures.push(failure);
      return failure === null;
    },
    () => {},
  );
  return failures.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
}

/** One read through the bridge, reusing an unchanged earlier observation of the same path. */
export async function readStep(
  ctx: RunContext,
  round: number,
  index: number,
  path: string,
  completed: Map<string, Completed>,
  budget: ToolBudget,
): Promise<ReplanReason | null> {
  stopIfAborted(ctx);
  const { recorder, bridge } = ctx;
  recorder.emit({ type: 'step_started', round, index, path });
  const started = performance.now();

  const earlier = completed.get(path);
  if (earlier) {
    budget.spend();
    const stat = await bridge.statFile(path);
    if (stat.ok && stat.value.bytes === earlier.meta.bytes && stat.value.mtimeMs === earlier.meta.mtimeMs) {
      recorder.emit({ type: 'step_cached', round, index, path, fromRound: earlier.round, sha256: earlier.meta.sha256 });
      return null;
    }
  }

  budget.spend();
  const read = await bridge.readFile(path);
  const durationMs = performance.now() - started;
  if (!read.ok) {
    recorder.emit({ type: 'step_failed', round, index, path, durationMs, code: read.code, message: read.message });
    return { step: index, path, code: read.code, message: read.message };
  }
  const meta = observe(ctx, read.value);
  completed.set(path, { meta, text: read.value.text, round });
  recorder.emit({
    type: 'step_finished',
    round,
    index,
    path,
    durationMs,
    observation: meta,
    replacedSha256: earlier && earlier.meta.sha256 !== meta.sha256 ? earlier.meta.sha256 : null,
  });
  return null;
}

function observe(ctx: RunContext, read: FileRead): ObservationMeta {
  return observation(ctx, read.path, read.text, read.sha256, read.mtimeMs, read.lines);
}

/** Keeps observed text as an artifact and describes it; tool outputs other than files are observations too. */
export function observation(ctx: RunContext, path: string, text: string, sha256: string, mtimeMs: number, lines: number): ObservationMeta {
  const artifact = ctx.recorder.artifact(`observation/${sha256.slice(0, 16)}/${path}`, text);
  return { path, sha256, bytes: Buffer.byteLength(text), lines, mtimeMs, artifact };
}
