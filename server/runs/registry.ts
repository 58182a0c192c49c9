import { foldRun, type ApprovalDecisionView, type RunState } from '../../lib/run-state';
import type { PlanRulesInfo } from '../../lib/plan-judgement';
import type { WorkerHost } from '../../lib/worker';
import type { Config } from '../config';
import { HostChoice } from '../llm/host-choice';
import { processHostSlots, type CallSlots } from '../llm/host-slots';
import { releaseHere, runtimeOwner, type KnownOwner } from '../store/owner';
import type { RunStore } from '../store/run-store';
import { ApprovalDesk } from './approval-desk';
import type { BridgePool } from './bridge-pool';
import type { RunBus } from './bus';
import { RunExecution, type RunTools } from './execution';
import { RunIntake, type RunOrigin } from './intake';
import type { GoingOn, LiveRun, NewRecorder } from './live-run';
import { LocalRunner } from './local-runner';
import type { QueuedRuns } from './queued';
import { RunRecorder } from './recorder';
import { recoverInterrupted, type Attempts } from './recovery';
import { RunSlots } from './slots';
import { UnstoredRunEnds } from './unstored-end';
import { workspacePolicy, type WorkspacePolicy } from './workspace';

export type { RunTools } from './execution';
export type { Attempts } from './recovery';

/**
 * Background runs: started from a server action, the API or the CLI through
 * the same `start`, bounded by `maxConcurrentRuns` (the rest wait, visibly
 * `queued`), cancellable, and watched live through the bus. The registry
 * keeps the runs live here and their lifecycle; its parts do the rest:
 * `RunIntake` (requests, new runs and forks, plan rules), `RunSlots` (the
 * bound), `LocalRunner` (a stored run taken up here), `RunExecution` (one
 * run executed and retired), `ApprovalDesk` (decisions and waits),
 * recovery, `UnstoredRunEnds` (the end of a run stopped by a commit that
 * failed), and `HostChoice` (which Ollama host).
 */
export class RunRegistry {
  private readonly live = new Map<string, LiveRun>();
  private readonly slots: RunSlots<LiveRun>;
  private readonly hosts: HostChoice;
  private readonly intake: RunIntake;
  private readonly desk: ApprovalDesk;
  private readonly execution: RunExecution;
  private readonly runner: LocalRunner;
  private readonly newRecorder: NewRecorder;
  private readonly unstored: UnstoredRunEnds;
  /** The workspaces runs may use here, the default one pinned as this registry started: what posting and running a run are judged by. */
  readonly workspacePolicy: WorkspacePolicy;

  constructor(
    private readonly config: Config,
    private readonly store: RunStore,
    private readonly bus: RunBus,
    bridges: BridgePool,
    /** The tools runs offer their plans, listed once: the bridge's own, and the other configured MCP servers' (connected at start-up). */
    tools: () => Promise<RunTools>,
    /** The run queue (PostgreSQL): runs started here are sent to it, and run by whichever worker serves them. Null: run here. */
    private readonly queued: QueuedRuns | null = null,
    /** This runtime as the owner of the runs it records, and its worker's id: its own, not the process's, so two runtimes in one process are two workers. */
    readonly owner: KnownOwner = runtimeOwner(),
    /** Where runs' model calls take their host's slots: this process's, or (PostgreSQL) those every process shares. */
    callSlots: CallSlots = processHostSlots,
  ) {
    const policy = (this.workspacePolicy = workspacePolicy(config));
    this.newRecorder = (id, initial, controller) => new RunRecorder(id, store, (e) => bus.publish(id, e), initial, () => controller?.abort());
    const { live, newRecorder } = this;
    const slots = (this.slots = new RunSlots<LiveRun>(config.maxConcurrentRuns));
    this.hosts = new HostChoice(config, callSlots);
    const intake = (this.intake = new RunIntake({ config, owner, workspacePolicy: policy, store, tools, hosts: this.hosts, newRecorder }));
    const goOnHere = (recorder: RunRecorder, controller: AbortController, run: GoingOn) => this.runner.goOn(recorder, controller, run, null);
    const planRulesInfo = () => intake.planRulesInfo();
    this.desk = new ApprovalDesk({ config, owner, workspacePolicy: policy, store, bus, bridges, slots, live, queued, newRecorder, planRulesInfo, goOnHere });
    const unstored = (this.unstored = new UnstoredRunEnds({ store, queued, newRecorder, isLive: (id) => live.has(id) }));
    const execution = (this.execution = new RunExecution({
      config,
      workspacePolicy: policy,
      store,
      bridges,
      tools,
      slots,
      live,
      decisions: this.desk,
      unstored: (id, error) => void unstored.schedule(id, error),
    }));
    this.runner = new LocalRunner({ owner, workspacePolicy: policy, store, bus, hosts: this.hosts, slots, live, execution, desk: this.desk, newRecorder });
  }

  /** The models each Ollama host listed, in the order configured (this process's worker registration): what host choice goes by. */
  serveFrom(hosts: readonly WorkerHost[]): void {
    this.hosts.serveFrom(hosts);
  }

  /** Whether runs started here go to the run queue, for workers anywhere. */
  get queues(): boolean {
    return this.queued !== null;
  }

  /**
   * Creates a run and runs it: in this process (`create`, then `runStored`
   * as its first attempt), or, with the run queue, by a worker that serves
   * it (`create`, then sent to the queue). `origin`: who started it, and the evaluation it is an item of.
   */
  async start(input: unknown, origin: RunOrigin = {}): Promise<{ id: string }> {
    if (this.queued) {
      const { id } = await this.create(input, origin);
      await this.queued.send(id);
      return { id };
    }
    const { id, model, log } = await this.intake.createHeld(input, origin);
    return this.runner.run(id, { attempt: 1, maxAttempts: 1, from: null }, model, log);
  }

  /**
   * Creates a run without running it: the request is judged, the row stored
   * with this process as its owner, and `run_created` (with where a fork
   * begins) and a fork's `work_carried` recorded, so that any process can
   * run it from its log alone (`runStored`).
   */
  async create(input: unknown, origin: RunOrigin = {}): Promise<{ id: string }> {
    const { id } = await this.intake.createHeld(input, origin);
    releaseHere('run', id);
    return { id };
  }

  /**
   * Runs a stored run in this process, from its own log (`runStartFromLog`):
   * its completed work reused, from where it had got to. `from` is the
   * owner the run is taken over from (its process died): the run is claimed
   * from it first, and one that is not its owner's any more is refused
   * (`run_not_claimed`). A take-over (`attempt` 2 and on) records
   * `run_resumed` before going on; past `maxAttempts` the run ends
   * `interrupted` with the reason instead. A run that has ended, or waits
   * for a person's decision, is left as it is.
   */
  async runStored(id: string, attempts: Attempts): Promise<{ id: string }> {
    return this.runner.run(id, attempts, null);
  }

  /** Cancels a queued or running run; false when it is not live in this process. */
  cancel(id: string): boolean {
    const live = this.live.get(id);
    if (!live) return false;
    live.stopReason ??= 'cancelled';
    if (this.slots.withdraw(live)) {
      live.recorder.emit({ type: 'run_finished', status: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled before it started.' } });
      void this.execution.retire(id, live);
      return true;
    }
    live.controller.abort();
    return true;
  }

  /**
   * This process stops taking runs and hands back those live here, queued
   * for a slot or running: each records nothing more here and stops, its
   * log as it was committed, for another worker to resume it from there, as
   * after a crash (its completed work reused). A run waiting for a person is
   * parked, as on shutdown. The ids handed back; each settles as it stops.
   */
  handBack(): string[] {
    const handed: string[] = [];
    for (const [id, live] of this.live) {
      if (live.awaiting) {
        live.awaiting.park();
        continue;
      }
      live.recorder.letGo('its worker stopped and handed it back to the run queue');
      this.bus.letGo(id);
      handed.push(id);
      if (this.slots.withdraw(live)) void this.execution.retire(id, live);
      else live.controller.abort();
    }
    return handed;
  }

  isLive(id: string): boolean {
    return this.live.has(id);
  }

  /** The runs live here, queued for a slot or running: what this process's worker heartbeat reports. */
  liveRuns(): string[] {
    return [...this.live.keys()];
  }

  /**
   * Resolves with the final state once the run ends (or, live here, parks
   * waiting for a decision). With the run queue, a run live elsewhere is
   * followed to its end; else its state as stored now.
   */
  async waitFor(id: string): Promise<RunState> {
    const live = this.live.get(id);
    if (live) return live.done;
    if (this.queued) return this.queued.waitFor(id);
    return foldRun(await this.store.events(id));
  }

  /**
   * Cancels a run wherever it is: live here, waiting for a decision with no
   * process of its own, or (with the run queue) queued or run by another
   * process. False when there is no such run still going.
   */
  async cancelElsewhere(id: string): Promise<boolean> {
    if (this.cancel(id)) return true;
    if (await this.cancelWaiting(id)) return true;
    return this.queued ? this.queued.cancelElsewhere(id) : false;
  }

  /** Runs left unfinished by a process that no longer exists are marked `interrupted` (`recoverInterrupted` in recovery.ts). */
  async recoverInterrupted(): Promise<number> {
    const { store, queued, newRecorder, desk } = this;
    return recoverInterrupted({ store, queued, newRecorder, isLive: (id) => this.live.has(id), watchWaiting: (id) => desk.watchWaiting(id) });
  }

  /**
   * Keeps the approval timeouts of these runs where they wait for a decision
   * (the others are skipped): the runs of a worker found dead, whose timers
   * died with it. Several processes may keep one: the first to end it wins.
   */
  async keepWaiting(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.desk.watchWaiting(id);
  }

  /** Cancels a run that waits for a decision with no process of its own; false when it is not such a run (`cancel` handles runs live here). */
  async cancelWaiting(id: string): Promise<boolean> {
    return this.desk.cancelWaiting(id);
  }

  /** Records a person's decision on the plan a run waits for, and lets the run go on (`ApprovalDesk.decide`). */
  async decide(id: string, input: unknown, by: string): Promise<ApprovalDecisionView> {
    return this.desk.decide(id, input, by);
  }

  /** The rules plans are judged by, as plain data: what the fork editor in the browser validates with, and forks are judged by. */
  async planRulesInfo(): Promise<PlanRulesInfo> {
    return this.intake.planRulesInfo();
  }

  /** Cancels everything in flight and waits (bounded) for each run to record its end. */
  async shutdown(timeoutMs = 5000): Promise<void> {
    this.desk.stopWatching();
    this.unstored.stop();
    const pending = [...this.live.entries()];
    // A run waiting for a person is not stopped by the process going away: it stays waiting.
    for (const [id, live] of pending) if (live.awaiting) live.awaiting.park();
    else this.cancel(id);
    await Promise.race([
      Promise.allSettled(pending.map(([, live]) => live.done)),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }
}
