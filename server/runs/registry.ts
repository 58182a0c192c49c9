import { randomBytes } from 'node:crypto';
import type { RunErrorCode } from '../../lib/codes';
import type { PlanProfile, RunEvent, RunLimits, Strategy } from '../../lib/events';
import type { ToolSpec } from '../../lib/general-plan';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import { RunRequest } from '../../lib/run-request';
import { emptyRun, foldRun, isTerminal, type RunState } from '../../lib/run-state';
import { runLimits, type Config } from '../config';
import { completedWork } from '../engine/completed-work';
import { runAgent } from '../engine/run-loop';
import { toolBudget } from '../engine/tool-budget';
import type { ExternalTools } from '../engine/tools';
import { readyModel } from '../llm/readiness';
import { resolveModel } from '../llm/resolve';
import { workspaceChange } from '../mcp/workspace-identity';
import { inRunTrace, newRunTraceparent } from '../telemetry/trace-context';
import { heldHere, holdHere, ownerAlive, releaseHere, thisProcess } from '../store/owner';
import { ownerOfRun } from '../store/run-columns';
import type { RunStore } from '../store/run-store';
import type { BridgeLease, BridgePool } from './bridge-pool';
import type { RunBus } from './bus';
import { RunRecorder } from './recorder';
import { RequestError } from '../http/request-error';
import { resolveWorkspace, type PinnedWorkspace } from './workspace';

/** The tools a run offers its plans: the workspace bridge's own, and those of the other configured MCP servers. */
export interface RunTools {
  workspace: readonly ToolSpec[];
  external: ExternalTools;
}

interface LiveRun {
  recorder: RunRecorder;
  controller: AbortController;
  /** Why the run is being stopped, once it is. */
  stopReason: 'cancelled' | 'timeout' | null;
  done: Promise<RunState>;
  settle: (view: RunState) => void;
  start: () => void;
}

/**
 * Background runs: started from a server action, the API or the CLI through
 * the same `start`, bounded by `maxConcurrentRuns` (the rest wait, visibly
 * `queued`), cancellable, and watched live through the bus.
 */
export class RunRegistry {
  private readonly live = new Map<string, LiveRun>();
  private readonly queue: string[] = [];
  private running = 0;

  constructor(
    private readonly config: Config,
    private readonly store: RunStore,
    private readonly bus: RunBus,
    private readonly bridges: BridgePool,
    /** The tools runs offer their plans, listed once: the bridge's own, and the other configured MCP servers' (connected at start-up). */
    private readonly tools: () => Promise<RunTools>,
  ) {}

  async start(input: unknown): Promise<{ id: string }> {
    const request = this.parseRequest(input);
    const pinned = resolveWorkspace(request.workspace ?? this.config.workspace, {
      roots: this.config.workspaceRoots,
      defaultWorkspace: this.config.workspace,
    });
    const model = await readyModel(this.config, resolveModel(request.model ?? this.config.model, this.config));
    const strategy = request.strategy ?? 'plan-execute';
    const profile = request.profile ?? 'file';
    const limits = runLimits(this.config, { profile, maxRounds: request.maxRounds });
    const id = newRunId();
    const traceparent = this.config.telemetry.traces ? newRunTraceparent() : undefined;
    const owner = thisProcess();
    // Held before its row exists: recovery in this process (another runtime) must never take it for an orphan.
    holdHere('run', id);
    await this.store.createRun({
      id,
      createdAt: Date.now(),
      task: request.task,
      model: model.name,
      baseline: model.baseline,
      workspace: pinned.path,
      strategy,
      profile,
      ownerPid: owner.pid,
      ownerHost: owner.host,
      ownerStart: owner.start,
    });
    const controller = new AbortController();
    const recorder = this.newRecorder(id, emptyRun, controller);
    recorder.emit({
      type: 'run_created',
      task: request.task,
      model: model.name,
      baseline: model.baseline,
      host: model.host,
      workspace: pinned.path,
      workspaceIdentity: pinned.identity,
      strategy,
      profile,
      limits,
      ...(traceparent !== undefined && { traceparent }),
    });

    let settle!: (view: RunState) => void;
    const done = new Promise<RunState>((resolve) => (settle = resolve));
    const live: LiveRun = {
      recorder,
      controller,
      stopReason: null,
      done,
      settle,
      start: () => {
        // Every call the run makes (to Ollama, to MCP servers) carries its trace from here on.
        void inRunTrace(traceparent, () => this.execute(id, live, recorder, model, pinned, limits, strategy, profile));
      },
    };
    this.live.set(id, live);
    this.queue.push(id);
    this.pump();
    // With a store that commits later, the id is handed out once the run's first events are stored, as with one that commits at once.
    try {
      await recorder.flushed();
    } catch (error) {
      // A later event that failed has stopped the run already; one whose first event was not stored cannot be shown at all.
      if (recorder.committedView.lastSeq === 0) throw error;
    }
    return { id };
  }

  /** Cancels a queued or running run; false when it is not live in this process. */
  cancel(id: string): boolean {
    const live = this.live.get(id);
    if (!live) return false;
    live.stopReason ??= 'cancelled';
    const queued = this.queue.indexOf(id);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      live.recorder.emit({ type: 'run_finished', status: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled before it started.' } });
      void this.retire(id, live, { running: false });
      return true;
    }
    live.controller.abort();
    return true;
  }

  isLive(id: string): boolean {
    return this.live.has(id);
  }

  /** Resolves with the final state once the run ends. */
  async waitFor(id: string): Promise<RunState> {
    const live = this.live.get(id);
    if (live) return live.done;
    return foldRun(await this.store.events(id));
  }

  /**
   * Runs left unfinished by a process that no longer exists are marked
   * `interrupted`, visibly, with the last thing they reached. Only owners on
   * this host are judged (server/store/owner.ts): a run another machine
   * owns is left to it.
   */
  async recoverInterrupted(): Promise<number> {
    let recovered = 0;
    for (const row of await this.store.unfinishedRuns()) {
      // Live here: ours and still going. Another live process (a CLI run): its own.
      if (ownerAlive(ownerOfRun(row), this.live.has(row.id) || heldHere('run', row.id))) continue;
      const recorder = this.newRecorder(row.id, foldRun(await this.store.events(row.id)));
      // It may have ended while its events were read.
      if (isTerminal(recorder.view.status)) continue;
      try {
        recorder.emit({
          type: 'run_finished',
          status: 'interrupted',
          error: { code: 'interrupted', message: `The server stopped while this run was in flight; ${lastReached(recorder.view)}.` },
        });
        await recorder.flushed();
        recovered += 1;
      } catch (error) {
        // Another process starting at the same moment recorded it first (its sequence number is taken); the others still get theirs.
        process.stderr.write(`planscope: run ${row.id} was not marked interrupted: ${(error as Error).message}\n`);
      }
    }
    return recovered;
  }

  /** Cancels everything in flight and waits (bounded) for each run to record its end. */
  async shutdown(timeoutMs = 5000): Promise<void> {
    const pending = [...this.live.entries()];
    for (const [id] of pending) this.cancel(id);
    await Promise.race([
      Promise.allSettled(pending.map(([, live]) => live.done)),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }

  /**
   * The one place a task's length is judged, before the schema: an over-long
   * task is a 413 task_too_long whatever else is wrong with the request.
   */
  private parseRequest(input: unknown): RunRequest {
    const task = typeof input === 'object' && input !== null ? (input as { task?: unknown }).task : undefined;
    const length = typeof task === 'string' ? task.trim().length : 0;
    if (length > this.config.maxTaskChars) {
      throw new RequestError('task_too_long', `The task is ${length} characters; the limit is ${this.config.maxTaskChars}.`);
    }
    const parsed = RunRequest.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RequestError('invalid_request', `${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  }

  private pump(): void {
    while (this.running < this.config.maxConcurrentRuns && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const live = this.live.get(id);
      if (!live) continue;
      this.running += 1;
      live.start();
    }
  }

  private async execute(
    id: string,
    live: LiveRun,
    recorder: RunRecorder,
    model: ReturnType<typeof resolveModel>,
    workspace: PinnedWorkspace,
    limits: RunLimits,
    strategy: Strategy,
    profile: PlanProfile,
  ): Promise<void> {
    const timer = setTimeout(() => {
      live.stopReason ??= 'timeout';
      live.controller.abort();
    }, limits.runTimeoutMs);
    let lease: BridgeLease | null = null;
    try {
      lease = await this.leaseBridge(live, recorder, workspace, limits);
      if (lease) {
        const tools = await this.tools();
        await runAgent({
          task: recorder.view.task,
          strategy,
          profile,
          workspaceTools: tools.workspace,
          externalTools: tools.external,
          review: this.config.review,
          pathPolicy: this.config.pathPolicy,
          secretScan: this.config.secretScan,
          model,
          callOptions: this.config.callOptions,
          bridge: lease.bridge,
          limits,
          planLimits: { ...DEFAULT_PLAN_LIMITS, maxSteps: limits.maxSteps },
          recorder,
          budget: toolBudget(limits.toolBudget),
          work: completedWork(),
          signal: live.controller.signal,
          abortReason: () => live.stopReason ?? 'cancelled',
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
      lease?.release();
      clearTimeout(timer);
      await this.retire(id, live, { running: true });
    }
  }

  /**
   * The run's bridge, or null once the run has been finished here: its
   * workspace is no longer the directory it was posted with (checked before
   * anything is read), it was cancelled or timed out while waiting for a
   * bridge slot, or the bridge could not start.
   */
  private async leaseBridge(live: LiveRun, recorder: RunRecorder, workspace: PinnedWorkspace, limits: RunLimits): Promise<BridgeLease | null> {
    const finish = (status: 'failed' | 'cancelled', code: RunErrorCode, message: string, started: boolean): null => {
      if (started) recorder.emit({ type: 'run_started' });
      recorder.emit({ type: 'run_finished', status, error: { code, message } });
      return null;
    };
    const changed = () => {
      const change = workspaceChange(workspace.path, workspace.identity);
      return change === null ? null : `The workspace ${workspace.path} is no longer the directory this run was posted with (${change}); nothing was read.`;
    };
    const before = changed();
    if (before) return finish('failed', 'workspace_changed', before, false);
    try {
      return await this.bridges.acquire(workspace, {
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

  /**
   * Ends a run here once everything it recorded is stored: `done` then holds
   * the fold of what a reader of the store sees. A run that was running gives
   * its slot to the next one in the queue.
   */
  private async retire(id: string, live: LiveRun, { running }: { running: boolean }): Promise<void> {
    try {
      await live.recorder.flushed();
    } catch (error) {
      process.stderr.write(`planscope: run ${id} stopped: its events could not be stored: ${(error as Error).message}\n`);
    }
    if (running) this.running -= 1;
    this.live.delete(id);
    releaseHere('run', id);
    live.settle(live.recorder.committedView);
    if (running) this.pump();
  }

  /** A run's recorder, publishing on the bus; a store that fails to commit later stops the run through `controller`. */
  private newRecorder(id: string, initial: RunState, controller?: AbortController): RunRecorder {
    return new RunRecorder(id, this.store, (e: RunEvent) => this.bus.publish(id, e), initial, () => controller?.abort());
  }
}

function newRunId(): string {
  // Time first so ids sort by creation; random tail so concurrent starts never collide.
  return `${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`;
}

function lastReached(view: RunState): string {
  const round = view.rounds[view.rounds.length - 1];
  if (!round) return 'it had not planned yet';
  const step = [...round.steps].reverse().find((s) => s.status !== 'pending');
  if (step) return `last reached: round ${round.round}, step ${step.index + 1} (${step.path}, ${step.status})`;
  return `last reached: round ${round.round}, planning`;
}
