import type { ObservationMeta, ProposedStep, ReplanReason } from '../../lib/events';
import type { FileRead } from '../mcp/types';
import { inSpan, spanKey } from '../telemetry/trace-context';
import { RunStop, stopIfAborted, type RunContext } from './context';
import { runDag } from './dag';
import type { EarlyCall, ReadAhead } from './read-ahead';

/**
 * The Executor: one MCP tool call per step, through the bridge only.
 * Independent steps run concurrently up to `stepConcurrency`. A path already
 * completed in an earlier round is not read again while its size and mtime
 * are unchanged; a changed file is read again and the change recorded.
 * A step whose call `readAhead` began while the plan streamed takes that
 * call's outcome instead of making its own.
 * Returns the failures that call for a re-plan.
 */
export async function executeReads(ctx: RunContext, round: number, steps: ProposedStep[], readAhead?: ReadAhead): Promise<ReplanReason[]> {
  const failures: ReplanReason[] = [];
  await runDag(
    steps.length,
    () => [],
    ctx.limits.stepConcurrency,
    async (index) => {
      const path = steps[index]!.path;
      const early = readAhead?.claim(path);
      const failure = await inSpan(spanKey.step(round, index), () => readStep(ctx, round, index, path, early));
      if (failure) failures.push(failure);
      return failure === null;
    },
    () => {},
  );
  return failures.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
}

/** One read through the bridge, reusing an unchanged earlier observation of the same path. */
export async function readStep(ctx: RunContext, round: number, index: number, path: string, early?: EarlyCall): Promise<ReplanReason | null> {
  stopIfAborted(ctx);
  const { recorder } = ctx;
  const completed = ctx.work.observations;
  recorder.emit({ type: 'step_started', round, index, path });
  const started = performance.now();

  const earlier = completed.get(path);
  if (earlier) {
    const earlyStat = early?.kind === 'stat' ? early : undefined;
    const stat = earlyStat ? (await earlyStat.outcome).result : await statNow(ctx, path);
    if (stat.ok && stat.value.bytes === earlier.meta.bytes && stat.value.mtimeMs === earlier.meta.mtimeMs) {
      const fromRound = earlier.round;
      const reused = { fromRound, sha256: earlier.meta.sha256, reused: 'file' as const, ...fromRunOf(earlier) };
      recorder.emit({ type: 'step_cached', round, index, path, ...reused, ...readAheadMark(earlyStat) });
      return null;
    }
  }

  const earlyRead = early?.kind === 'read' ? early : undefined;
  const { read, durationMs } = earlyRead ? await readEarly(earlyRead) : await readNow(ctx, path, started);
  if (!read.ok) {
    const failure = { path, durationMs, code: read.code, message: read.message };
    recorder.emit({ type: 'step_failed', round, index, ...failure, ...readAheadMark(earlyRead) });
    // Another directory now stands where the workspace was: no re-plan can make reading it right.
    if (read.code === 'workspace_changed') throw new RunStop('workspace_changed', read.message);
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
    ...readAheadMark(earlyRead),
  });
  return null;
}

async function statNow(ctx: RunContext, path: string) {
  ctx.budget.spend();
  return ctx.bridge.statFile(path);
}

/** The step's own read, timed from the step's start. */
async function readNow(ctx: RunContext, path: string, started: number) {
  ctx.budget.spend();
  const read = await ctx.bridge.readFile(path);
  return { read, durationMs: performance.now() - started };
}

/** A read begun while the plan streamed, timed as the call itself ran. */
async function readEarly(early: Extract<EarlyCall, { kind: 'read' }>) {
  const { result, finishedAt } = await early.outcome;
  return { read: result, durationMs: finishedAt - early.startedAt };
}

/** Names the run that did the reused work, when it is another (a fork's parent); absent otherwise. */
export function fromRunOf(work: { run?: string }): { fromRun?: string } {
  return work.run === undefined ? {} : { fromRun: work.run };
}

/** Marks a step whose tool call began before its plan was accepted; absent otherwise. */
function readAheadMark(early: EarlyCall | undefined): { readAhead?: true } {
  return early ? { readAhead: true } : {};
}

function observe(ctx: RunContext, read: FileRead): ObservationMeta {
  return observation(ctx, read.path, read.text, read.sha256, read.mtimeMs, read.lines);
}

/** Keeps observed text as an artifact and describes it; tool outputs other than files are observations too. */
export function observation(ctx: RunContext, path: string, text: string, sha256: string, mtimeMs: number, lines: number): ObservationMeta {
  const artifact = ctx.recorder.artifact(`observation/${sha256.slice(0, 16)}/${path}`, text);
  return { path, sha256, bytes: Buffer.byteLength(text), lines, mtimeMs, artifact };
}
