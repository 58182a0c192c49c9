import type { RunErrorCode } from '../../lib/codes';
import type { Strategy } from '../../lib/events';
import { ModelCallError } from '../llm/types';
import { BridgeError } from '../mcp/bridge-client';
import type { WorkspaceFile } from '../mcp/types';
import { RunParked, RunStop, stopIfAborted, type RunContext } from './context';
import { review } from './reviewer';
import { gatherByPlan } from './strategies/plan-execute';
import { gatherByReAct } from './strategies/react';
import { synthesize } from './synthesizer';

/** How a run gathers its observations before the answer is written. */
const GATHER: Record<Strategy, (ctx: RunContext, files: WorkspaceFile[]) => Promise<void>> = {
  'plan-execute': gatherByPlan,
  react: gatherByReAct,
};

/**
 * One run: gather observations (by plan-and-execute, or by the ReAct
 * baseline), synthesize, check, review. A run started at the answer stage
 * gathers nothing: its completed work is what it answers from. Every way
 * out ends in exactly one `run_finished` event; hitting a bound is an
 * explicit failure with its reason, never a hang.
 */
export async function runAgent(ctx: RunContext): Promise<void> {
  // A run going on after a restart started long ago.
  // The host it starts on may not be the one `run_created` named: the least busy one is chosen as it starts.
  if (ctx.recorder.view.startedAt === null) ctx.recorder.emit({ type: 'run_started', ...(ctx.model.host !== null && { host: ctx.model.host }) });
  try {
    if (ctx.start?.stage !== 'answer') await gather(ctx);
    stopIfAborted(ctx);
    const check = await synthesize(ctx);
    if (ctx.review) {
      stopIfAborted(ctx);
      await review(ctx, check.claims);
    }
    ctx.recorder.emit({ type: 'run_finished', status: 'completed', error: null });
  } catch (thrown) {
    // A run parked while waiting for a person is not over: its log already says what it waits for.
    if (thrown instanceof RunParked) return;
    finishWithError(ctx, thrown);
  }
}

async function gather(ctx: RunContext): Promise<void> {
  ctx.budget.spend();
  const files = await ctx.bridge.listFiles().catch((error: Error) => {
    if (isWorkspaceChanged(error)) throw error;
    throw new RunStop('bridge_unavailable', `The workspace bridge could not list files: ${error.message}`);
  });
  await GATHER[ctx.strategy](ctx, files);
}

function finishWithError(ctx: RunContext, thrown: unknown): void {
  let code: RunErrorCode;
  let message: string;
  if (thrown instanceof RunStop || thrown instanceof ModelCallError) {
    ({ code, message } = thrown);
  } else if (isWorkspaceChanged(thrown)) {
    code = 'workspace_changed';
    message = `The workspace bridge refused to list files: ${thrown.message}`;
  } else {
    code = 'internal';
    message = `Unexpected error: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
  }
  const status = code === 'cancelled' ? 'cancelled' : 'failed';
  ctx.recorder.emit({ type: 'run_finished', status, error: { code, message } });
}

/** A listing the bridge refused because another directory now stands where the workspace was (any step may list). */
function isWorkspaceChanged(error: unknown): error is BridgeError {
  return error instanceof BridgeError && error.code === 'workspace_changed';
}
