import type { RunErrorCode } from '../../lib/codes';
import type { PlanProfile, RunLimits, Strategy } from '../../lib/events';
import type { ToolSpec } from '../../lib/general-plan';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import { foldRun, isTerminal } from '../../lib/run-state';
import type { Config } from '../config';
import { runAgent } from '../engine/run-loop';
import { toolBudget } from '../engine/tool-budget';
import type { ExternalTools } from '../engine/tools';
import type { Model } from '../llm/types';
import { workspaceChange } from '../mcp/workspace-identity';
import { releaseHere } from '../store/owner';
import type { RunStore } from '../store/run-store';
import type { RunStartInput } from './run-start-from-log';
import type { BridgeLease, BridgePool } from './bridge-pool';
import { LentBridge } from './lent-bridge';
import type { DecisionWait, LiveRun } from './live-run';
import { PausableTimer } from './pausable-timer';
import type { RunSlots } from './slots';
import { allowsPinned, type PinnedWorkspace, type WorkspacePolicy } from './workspace';

/** The tools a run offers its plans: the workspace bridge's own, and those of the other configured MCP servers. */
export interface RunTools {
  workspace: readonly ToolSpec[];
  external: ExternalTools;
}

/** Everything one run executes with, once it holds a slot and its host is chosen. */
export interface ExecutionPlan {
  live: LiveRun;
  model: Model;
  workspace: PinnedWorkspace;
  limits: RunLimits;
  strategy: Strategy;
  profile: PlanProfile;
  startInput: RunStartInput;
  /** Whether each accepted plan waits for a person's decision. */
  approval: boolean;
}

export interface ExecutionParts {
  config: Config;
  /** The workspaces runs may use here, the default one pinned as the registry started: what posting and running a run are judged by. */
  workspacePolicy: WorkspacePolicy;
  store: RunStore;
  bridges: BridgePool;
  /** The tools runs offer their plans, listed once: the bridge's own, and the other configured MCP servers' (connected at start-up). */
  tools: () => Promise<RunTools>;
  slots: RunSlots<LiveRun>;
  /** The runs live here; a run retired leaves it. */
  live: Map<string, LiveRun>;
  decisions: DecisionWait;
  /** A run stopped because the store refused one of its events, retired here: it is ended from what was stored (`UnstoredRunEnds`). */
  unstored: (id: string, error: Error) => void;
}

/** A live run executed to its end in this process: its time limit, its bridge lease, the loop, and its retirement. */
export class RunExecution {
  constructor(private readonly parts: ExecutionParts) {}

  async execute({ live, model, workspace, limits, strategy, profile, startInput, approval }: ExecutionPlan): Promise<void> {
    const { config } = this.parts;
    const { recorder } = live;
    // What it used before (in another process, or before a wait it was parked for) is not given again.
    const timer = new PausableTimer(Math.max(0, limits.runTimeoutMs - startInput.used.runMs), () => {
      live.stopReason ??= 'timeout';
      live.controller.abort();
    });
    let bridge: LentBridge | null = null;
    try {
      const lease = await this.leaseBridge(live, workspace, limits);
      if (lease) {
        bridge = new LentBridge(lease.bridge.workspace, lease);
        const lent = bridge;
        const tools = await this.parts.tools();
        await runAgent({
          task: recorder.view.task,
          strategy,
          profile,
          workspaceTools: tools.workspace,
          externalTools: tools.external,
          review: config.review,
          pathPolicy: config.pathPolicy,
          secretScan: config.secretScan,
          model,
          callOptions: config.callOptions,
          bridge,
          limits,
          planLimits: { ...DEFAULT_PLAN_LIMITS, maxSteps: limits.maxSteps },
          recorder,
          budget: toolBudget(limits.toolBudget, startInput.used.toolCalls),
          work: startInput.work,
          ...(startInput.start && { start: startInput.start }),
          signal: live.controller.signal,
          abortReason: () => live.stopReason ?? 'cancelled',
          approvals: approval ? { wait: (pending) => this.parts.decisions.wait(live, pending, { timer, bridge: lent, workspace }) } : null,
        });
      }
    } catch (error) {
      // A recorder whose store failed records nothing more; it has stopped the run already.
      if (!isTerminal(recorder.view.status) && !recorder.failed) {
        recorder.emit({
          type: 'run_finished',
          status: 'failed',
          error: { code: 'internal', message: `Unexpected error: ${(error as Error).message}` },
        });
      }
    } finally {
      bridge?.giveBack();
      timer.clear();
      await this.retire(recorder.runId, live);
    }
  }

  /**
   * Ends a run here once everything it recorded is stored: `done` then holds
   * the fold of what a reader of the store sees. A run holding a slot gives
   * it to the next one in the queue.
   */
  async retire(id: string, live: LiveRun): Promise<void> {
    const refused = await live.recorder.flushed().then(
      () => null,
      (error: unknown) => error as Error,
    );
    if (refused) process.stderr.write(`planscope: run ${id} stopped: its events could not be stored: ${refused.message}\n`);
    this.parts.live.delete(id);
    releaseHere('run', id);
    // A cancel that came while the run was parking for a decision (the run queue) found nothing left to stop: it ends now, as a waiting run.
    const parkedCancelled =
      live.stopReason === 'cancelled' && live.recorder.committedView.status === 'awaiting_approval' && (await this.parts.decisions.cancelWaiting(id));
    live.settle(parkedCancelled ? foldRun(await this.parts.store.events(id)) : live.recorder.committedView);
    this.parts.slots.giveUp(live);
    if (refused) this.parts.unstored(id, refused);
  }

  /**
   * The run's bridge, or null once the run has been finished here: its
   * workspace is no longer the directory it was posted with (checked before
   * anything is read), it was cancelled or timed out while waiting for a
   * bridge slot, or the bridge could not start.
   */
  private async leaseBridge(live: LiveRun, workspace: PinnedWorkspace, limits: RunLimits): Promise<BridgeLease | null> {
    const { recorder } = live;
    const finish = (status: 'failed' | 'cancelled', code: RunErrorCode, message: string, started: boolean): null => {
      if (started) recorder.emit({ type: 'run_started' });
      recorder.emit({ type: 'run_finished', status, error: { code, message } });
      return null;
    };
    const changed = () => {
      const change = workspaceChange(workspace.path, workspace.identity);
      return change === null ? null : `The workspace ${workspace.path} is no longer the directory this run was posted with (${change}); nothing was read.`;
    };
    // Judged again wherever it runs, by this process's own roots: a run posted elsewhere, under other roots, is not run here.
    if (!allowsPinned(this.parts.workspacePolicy, workspace)) {
      return finish('failed', 'workspace_not_allowed', `The workspace ${workspace.path} is not inside this process's workspace roots (PLANSCOPE_WORKSPACE_ROOTS); nothing was read.`, false);
    }
    const before = changed();
    if (before) return finish('failed', 'workspace_changed', before, false);
    try {
      return await this.parts.bridges.acquire(workspace, {
        signal: live.controller.signal,
        onWait: (message) => recorder.emit({ type: 'run_waiting', reason: 'bridge_pool_full', message }),
      });
    } catch (error) {
      if (live.controller.signal.aborted) {
        return live.stopReason === 'timeout'
          ? finish('failed', 'timeout', `The run hit its time limit of ${Math.round(limits.runTimeoutMs / 1000)} s while waiting for a workspace bridge.`, false)
          : finish('cancelled', 'cancelled', 'The run was cancelled while waiting for a workspace bridge.', false);
      }
      // A bridge refuses to start on a workspace that changed since the check above.
      const after = changed();
      if (after) return finish('failed', 'workspace_changed', after, false);
      return finish('failed', 'bridge_unavailable', `The workspace bridge could not start: ${(error as Error).message}`, true);
    }
  }
}
