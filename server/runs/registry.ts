import { newRunId } from './run-id';
import type { ErrorInfo, RunErrorCode } from '../../lib/codes';
import type { EventOf, ForkedFrom, PlanProfile, ProposedStep, RunBegin, RunEvent, RunLimits, Strategy } from '../../lib/events';
import type { ToolSpec } from '../../lib/general-plan';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import { RunRequest, type ForkRequest } from '../../lib/run-request';
import { judgeGivenPlan, rulesOf, type PlanRulesInfo } from '../../lib/plan-judgement';
import { emptyRun, foldRun, isTerminal, pendingApproval, roundOf, type ApprovalDecisionView, type RunState } from '../../lib/run-state';
import { ApprovalBody } from '../../lib/approval';
import { runLimits, type Config } from '../config';
import { completedWork } from '../engine/completed-work';
import { RunParked, RunStop } from '../engine/context';
import type { ApprovalWait } from '../engine/ports';
import { planRules } from '../engine/profiles/profile';
import { runAgent } from '../engine/run-loop';
import { lessonsOf, type RunStart } from '../engine/start-point';
import { beginningOf, type RunBeginning } from './beginning';
import { approvedPlanOf } from '../engine/approval';
import { toolBudget } from '../engine/tool-budget';
import type { ExternalTools } from '../engine/tools';
import { readyModel } from '../llm/readiness';
import { resolveModel } from '../llm/resolve';
import { HostKeepers, hostModelsOf, hostsServing, leastBusy } from '../llm/host-choice';
import { EMBEDDED_HOST } from '../llm/embedded/model';
import { processHostSlots } from '../llm/host-slots';
import type { WorkerHost } from '../../lib/worker';
import { workspaceChange } from '../mcp/workspace-identity';
import { inRunTrace, newRunTraceparent } from '../telemetry/trace-context';
import { heldHere, holdHere, ownerAlive, releaseHere, thisProcess, type Owner } from '../store/owner';
import type { Model } from '../llm/types';
import { ownerOfRun } from '../store/run-columns';
import type { RunStore } from '../store/run-store';
import type { BridgeLease, BridgePool } from './bridge-pool';
import { LentBridge } from './lent-bridge';
import { PausableTimer } from './pausable-timer';
import type { RunBus } from './bus';
import { prepareFork } from './fork';
import type { QueuedRuns } from './queued';
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
  /** Whether it holds one of the `maxConcurrentRuns` slots now; a run waiting for a person does not. */
  holdsSlot: boolean;
  /** The decision it waits for, while it does. */
  awaiting: AwaitingDecision | null;
  done: Promise<RunState>;
  settle: (view: RunState) => void;
  start: () => void;
}

/** A run waiting for a person's decision on its plan. */
interface AwaitingDecision {
  pending: ApprovalWait;
  /** The decision is recorded: the run takes a slot and a bridge again and goes on. */
  decided(decision: ApprovalDecisionView): void;
  /** This process is stopping: the run stays waiting in the store, for a process started later to continue. */
  park(): void;
}

/**
 * Background runs: started from a server action, the API or the CLI through
 * the same `start`, bounded by `maxConcurrentRuns` (the rest wait, visibly
 * `queued`), cancellable, and watched live through the bus.
 */
export class RunRegistry {
  private readonly live = new Map<string, LiveRun>();
  private readonly queue: string[] = [];
  /** Runs going on after a decision, waiting for a slot: served before the queue of runs not yet started. */
  private readonly resuming: (() => void)[] = [];
  /** The approval timeouts of runs waiting with no process of their own, found at recovery: this process ends them. */
  private readonly waitingElsewhere = new Map<string, NodeJS.Timeout>();
  private running = 0;
  /** This process's Ollama hosts with the models each listed when it registered as a worker; null until then. */
  private registeredHosts: readonly WorkerHost[] | null = null;
  /** How many of the runs executing here keep each host. */
  private readonly hostKeepers = new HostKeepers();

  constructor(
    private readonly config: Config,
    private readonly store: RunStore,
    private readonly bus: RunBus,
    private readonly bridges: BridgePool,
    /** The tools runs offer their plans, listed once: the bridge's own, and the other configured MCP servers' (connected at start-up). */
    private readonly tools: () => Promise<RunTools>,
    /** The run queue (PostgreSQL): runs started here are sent to it, and run by whichever worker serves them. Null: run here. */
    private readonly queued: QueuedRuns | null = null,
  ) {}

  /** The models each Ollama host listed, in the order configured (this process's worker registration): what host choice goes by. */
  serveFrom(hosts: readonly WorkerHost[]): void {
    this.registeredHosts = hosts;
  }

  /**
   * The model of a run that starts executing here, at the least busy host
   * that has it (calls in flight and waiting there, and runs keeping it),
   * kept by the run until `release`: all its calls go there. `ready` is the
   * model as the run's readiness check found it; its facts hold for the
   * same model on any host.
   */
  private modelOnHost(name: string, ready: Model | null): { model: Model; release: () => void } {
    const host = this.leastBusyHost(name);
    const model = resolveModel(name, this.config, host);
    const chosen = ready && ready.contextLength !== undefined ? { ...model, contextLength: ready.contextLength } : model;
    // The baseline and an embedded model run in this process: no Ollama host is kept by them.
    const keepsHost = !model.baseline && model.host !== EMBEDDED_HOST;
    return { model: chosen, release: keepsHost ? this.hostKeepers.keep(host) : () => {} };
  }

  /** The least busy of this process's Ollama hosts that have model `name` now: calls in flight and waiting there, and runs keeping it. */
  private leastBusyHost(name: string): string {
    const hosts = hostsServing(name, hostModelsOf(this.config.ollamaHosts, this.registeredHosts), this.config.model);
    return leastBusy(hosts, (h) => this.hostKeepers.count(h) + processHostSlots.load(h)) ?? this.config.ollamaHost;
  }

  /** Whether runs started here go to the run queue, for workers anywhere. */
  get queues(): boolean {
    return this.queued !== null;
  }

  /**
   * Creates a run and runs it: in this process (`create`, then `runStored`
   * as its first attempt), or, with the run queue, by a worker that serves
   * it (`create`, then sent to the queue).
   */
  async start(input: unknown): Promise<{ id: string }> {
    if (this.queued) {
      const { id } = await this.create(input);
      await this.queued.send(id);
      return { id };
    }
    const { id, model } = await this.createHeld(input);
    return this.runHere(id, { attempt: 1, maxAttempts: 1, from: null }, model);
  }

  /**
   * Creates a run without running it: the request is judged, the row stored
   * with this process as its owner, and `run_created` (with where a fork
   * begins) and a fork's `work_carried` recorded, so that any process can
   * run it from its log alone (`runStored`).
   */
  async create(input: unknown): Promise<{ id: string }> {
    const { id } = await this.createHeld(input);
    releaseHere('run', id);
    return { id };
  }

  /** `create`, the run still held by this process, and the model as its readiness check found it. */
  private async createHeld(input: unknown): Promise<{ id: string; model: Model }> {
    const request = this.parseRequest(input);
    const setup = request.fork ? await this.forkSetup(request, request.fork) : this.newRunSetup(request);
    const { task, pinned, strategy, profile, begin } = setup;
    const approval = request.approval ?? null;
    if (approval && strategy !== 'plan-execute') {
      throw new RequestError('invalid_request', 'approval: only a plan-execute run has plans to approve.');
    }
    // Nothing of a plan is read before a person approves it.
    const limits = approval ? { ...setup.limits, readAhead: false } : setup.limits;
    // Checked, and named in `run_created`, at a host that has the model; the host the run's calls go to is chosen as it starts.
    const modelName = request.model ?? setup.model;
    const host = this.leastBusyHost(modelName);
    const model = await readyModel(this.config, resolveModel(modelName, this.config, host), host);
    const id = newRunId();
    const traceparent = this.config.telemetry.traces ? newRunTraceparent() : undefined;
    const owner = thisProcess();
    // Held before its row exists: recovery in this process (another runtime) must never take it for an orphan.
    holdHere('run', id);
    await this.store.createRun({
      id,
      createdAt: Date.now(),
      task,
      model: model.name,
      baseline: model.baseline,
      workspace: pinned.path,
      strategy,
      profile,
      ownerPid: owner.pid,
      ownerHost: owner.host,
      ownerStart: owner.start,
      ...(setup.forkedFrom && { forkedFromRun: setup.forkedFrom.run, forkedFromRound: setup.forkedFrom.round }),
    });
    const recorder = this.newRecorder(id, emptyRun);
    recorder.emit({
      type: 'run_created',
      task,
      model: model.name,
      baseline: model.baseline,
      host: model.host,
      workspace: pinned.path,
      workspaceIdentity: pinned.identity,
      strategy,
      profile,
      limits,
      ...(approval && { approval }),
      ...(traceparent !== undefined && { traceparent }),
      ...(setup.forkedFrom && { forkedFrom: setup.forkedFrom }),
      ...(begin.start && { begin: recordedBegin(begin.start) }),
    });
    if (setup.carried) {
      // The fork keeps its own copy of each observation it starts with: its log and artifacts stand alone.
      for (const o of begin.work.observations.values()) recorder.artifact(o.meta.artifact, o.text);
      recorder.emit({ type: 'work_carried', ...setup.carried });
    }
    // With a store that commits later, the id is handed out once the run's first events are stored, as with one that commits at once.
    try {
      await recorder.flushed();
    } catch (error) {
      // One whose first event was not stored cannot be shown at all; a later event that failed leaves a run that can still be run.
      if (recorder.committedView.lastSeq === 0) {
        releaseHere('run', id);
        throw error;
      }
    }
    return { id, model };
  }

  /**
   * Runs a stored run in this process, from its own log (`beginningOf`):
   * its completed work reused, from where it had got to. `from` is the
   * owner the run is taken over from (its process died): the run is claimed
   * from it first, and one that is not its owner's any more is refused
   * (`run_not_claimed`). A take-over (`attempt` 2 and on) records
   * `run_resumed` before going on; past `maxAttempts` the run ends
   * `interrupted` with the reason instead. A run that has ended, or waits
   * for a person's decision, is left as it is.
   */
  async runStored(id: string, attempts: Attempts): Promise<{ id: string }> {
    return this.runHere(id, attempts, null);
  }

  private async runHere(id: string, { attempt, maxAttempts, from }: Attempts, ready: Model | null): Promise<{ id: string }> {
    if (from) {
      holdHere('run', id);
      if (!(await this.store.claimRun(id, from, thisProcess()))) {
        releaseHere('run', id);
        throw new RequestError('run_not_claimed', `Run ${id} is not owned by the process it was to be taken over from (pid ${from.pid ?? '?'} on ${from.host ?? '?'}).`);
      }
    }
    try {
      const events = await this.store.events(id);
      if (events.length === 0) throw new RequestError('run_not_found', `There is no run ${id}.`);
      const { view, created, begin, resume } = await beginningOf(events, (name) => this.store.getArtifact(id, name));
      const controller = new AbortController();
      const recorder = this.newRecorder(id, view, controller);
      if (!resume) {
        releaseHere('run', id);
        // Taken over while it waits for a person: this process now keeps its approval timeout.
        if (view.status === 'awaiting_approval') await this.watchWaiting(id);
        return { id };
      }
      const pinned = created.workspaceIdentity
        ? { path: created.workspace, identity: created.workspaceIdentity }
        : resolveWorkspace(created.workspace, { roots: this.config.workspaceRoots, defaultWorkspace: this.config.workspace });
      if (attempt >= 2) {
        const stopped = attempt > maxAttempts ? `it has been run ${attempt - 1} times, the most it is resumed (${maxAttempts} attempts)` : null;
        const changed = pinned.identity === undefined ? null : workspaceChange(pinned.path, pinned.identity);
        const refused = stopped ?? (changed === null ? null : `its workspace ${pinned.path} is no longer the directory it was posted with (${changed})`);
        if (!stopped) recorder.emit({ type: 'run_resumed', attempt, ...(refused === null ? resume : { round: null, restart: 'refused', reason: refused }) });
        const reason = refused ?? (resume.restart === 'refused' ? resume.reason : null);
        if (reason) {
          const message = `The process running this run stopped and it was not resumed: ${reason}; ${lastReached(view)}.`;
          recorder.emit({ type: 'run_finished', status: 'interrupted', error: { code: 'interrupted', message } });
          await recorder.flushed();
          releaseHere('run', id);
          return { id };
        }
      }
      const limits = view.limits ?? created.limits;
      // Every call the run makes (to Ollama, to MCP servers) carries its trace from here on.
      this.enqueue(id, recorder, controller, async (live) => {
        const { model, release } = this.modelOnHost(view.model, ready);
        try {
          await inRunTrace(created.traceparent, () =>
            this.execute(id, live, recorder, model, pinned, limits, view.strategy, view.profile, begin, view.approval !== null),
          );
        } finally {
          release();
        }
      });
      // A store that failed to commit has stopped the run already; its first events were stored when it was created.
      await recorder.flushed().catch(() => undefined);
      return { id };
    } catch (error) {
      if (!this.live.has(id)) releaseHere('run', id);
      throw error;
    }
  }

  /** A run live here from now on, queued for a slot; `run` runs it once it has one. */
  private enqueue(id: string, recorder: RunRecorder, controller: AbortController, run: (live: LiveRun) => Promise<void>): LiveRun {
    let settle!: (view: RunState) => void;
    const done = new Promise<RunState>((resolve) => (settle = resolve));
    const live: LiveRun = {
      recorder,
      controller,
      stopReason: null,
      holdsSlot: false,
      awaiting: null,
      done,
      settle,
      start: () => void run(live),
    };
    this.live.set(id, live);
    this.queue.push(id);
    this.pump();
    return live;
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
      void this.retire(id, live);
      return true;
    }
    live.controller.abort();
    return true;
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
      // A queued run has a job: freed from its worker, it is taken and resumed by another instead.
      if (this.queued && (await this.queued.release(row.id))) continue;
      // Waiting for a person is not being in flight: the process that asked has lost nothing by going away.
      if (row.status === 'awaiting_approval') {
        await this.watchWaiting(row.id);
        continue;
      }
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

  /**
   * Keeps the approval timeouts of these runs where they wait for a decision
   * (the others are skipped): the runs of a worker found dead, whose timers
   * died with it. Several processes may keep one: the first to end it wins.
   */
  async keepWaiting(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.watchWaiting(id);
  }

  /** Keeps the approval timeout of a run that waits with no process of its own, counted from its request. */
  private async watchWaiting(id: string): Promise<void> {
    const pending = pendingApproval(foldRun(await this.store.events(id)));
    if (!pending || this.waitingElsewhere.has(id)) return;
    const left = Math.max(0, pending.requestedAt + this.config.approvalTimeoutMs - Date.now());
    const timer = setTimeout(() => {
      this.waitingElsewhere.delete(id);
      void this.endWaiting(id, 'failed', { code: 'approval_timeout', message: approvalTimeoutMessage(pending.round, this.config.approvalTimeoutMs) }).catch(
        (error: unknown) => process.stderr.write(`planscope: run ${id} was not ended approval_timeout: ${(error as Error).message}\n`),
      );
    }, left);
    timer.unref();
    this.waitingElsewhere.set(id, timer);
  }

  private forgetWaiting(id: string): void {
    clearTimeout(this.waitingElsewhere.get(id));
    this.waitingElsewhere.delete(id);
  }

  /**
   * Cancels a run that waits for a decision with no process of its own;
   * false when it is not such a run (`cancel` handles runs live here).
   */
  async cancelWaiting(id: string): Promise<boolean> {
    return this.endWaiting(id, 'cancelled', { code: 'cancelled', message: 'The run was cancelled while it waited for a decision on its plan.' });
  }

  /** Ends a run that waits with no process of its own, once this process has taken it over; false when it is not waiting so. */
  private async endWaiting(id: string, status: 'failed' | 'cancelled', error: ErrorInfo): Promise<boolean> {
    const row = await this.store.getRun(id);
    if (row?.status !== 'awaiting_approval' || this.live.has(id)) return false;
    // With the run queue, a waiting run is parked: its owner may live on, holding it no more.
    if (!this.queued && ownerAlive(ownerOfRun(row), heldHere('run', id))) return false;
    holdHere('run', id);
    try {
      if (!(await this.store.claimRun(id, ownerOfRun(row), thisProcess()))) return false;
      this.forgetWaiting(id);
      const recorder = this.newRecorder(id, foldRun(await this.store.events(id)));
      if (recorder.view.status !== 'awaiting_approval') return false;
      recorder.emit({ type: 'run_finished', status, error });
      await recorder.flushed();
      return true;
    } finally {
      releaseHere('run', id);
    }
  }

  /** Cancels everything in flight and waits (bounded) for each run to record its end. */
  async shutdown(timeoutMs = 5000): Promise<void> {
    for (const id of [...this.waitingElsewhere.keys()]) this.forgetWaiting(id);
    const pending = [...this.live.entries()];
    // A run waiting for a person is not stopped by the process going away: it stays waiting.
    for (const [id, live] of pending) if (live.awaiting) live.awaiting.park();
    else this.cancel(id);
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

  /** The rules plans are judged by, as plain data: what the fork editor in the browser validates with, and forks are judged by. */
  async planRulesInfo(): Promise<PlanRulesInfo> {
    const tools = await this.tools();
    const rules = planRules({
      planLimits: DEFAULT_PLAN_LIMITS,
      pathPolicy: this.config.pathPolicy,
      workspaceTools: tools.workspace,
      externalTools: tools.external,
    });
    const { added, removed } = this.config.pathPolicy;
    return { maxSteps: this.config.maxSteps, deny: { added: [...added], removed: [...removed] }, tools: rules.tools, notOffered: [...rules.notOffered] };
  }

  /** A new run: the request's task in its workspace, from round 1 with nothing done. */
  private newRunSetup(request: RunRequest): RunSetup {
    const pinned = resolveWorkspace(request.workspace ?? this.config.workspace, {
      roots: this.config.workspaceRoots,
      defaultWorkspace: this.config.workspace,
    });
    const profile = request.profile ?? 'file';
    return {
      task: request.task ?? '',
      pinned,
      model: this.config.model,
      strategy: request.strategy ?? 'plan-execute',
      profile,
      limits: runLimits(this.config, { profile, maxRounds: request.maxRounds }),
      begin: { work: completedWork() },
    };
  }

  /** A fork: its parent's task and workspace, starting where the request says with the work its parent had done by then. */
  private async forkSetup(request: RunRequest, fork: ForkRequest): Promise<RunSetup> {
    const choices = { strategy: request.strategy, profile: request.profile, maxRounds: request.maxRounds };
    const info = await this.planRulesInfo();
    const rulesFor = (profile: PlanProfile) => rulesOf(info, profile);
    const setup = await prepareFork(this.store, fork, choices, rulesFor);
    const pinned = resolveWorkspace(setup.parent.workspace, { roots: this.config.workspaceRoots, defaultWorkspace: this.config.workspace });
    return {
      task: setup.parent.task,
      pinned,
      model: setup.parent.model,
      strategy: setup.strategy,
      profile: setup.profile,
      limits: runLimits(this.config, { profile: setup.profile, maxRounds: setup.maxRounds }),
      forkedFrom: setup.forkedFrom,
      carried: setup.carried,
      begin: { work: setup.work, start: setup.start },
    };
  }

  private pump(): void {
    while (this.running < this.config.maxConcurrentRuns && this.resuming.length > 0) {
      this.running += 1;
      this.resuming.shift()!();
    }
    while (this.running < this.config.maxConcurrentRuns && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const live = this.live.get(id);
      if (!live) continue;
      this.running += 1;
      live.holdsSlot = true;
      live.start();
    }
  }

  /**
   * Records a person's decision on the plan a run waits for, and lets the run
   * go on. Only the request the run waits for is answered, once: a repeated,
   * late or unknown one is refused (`approval_not_pending`) and changes
   * nothing. An edited plan the schema or the Validator refuses is refused
   * with its rejections (`plan_rejected`), and the run keeps waiting.
   */
  async decide(id: string, input: unknown, by: string): Promise<ApprovalDecisionView> {
    const parsed = ApprovalBody.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RequestError('invalid_request', `${issue?.path.join('.') || 'decision'}: ${issue?.message ?? 'invalid'}`);
    }
    const body = parsed.data;
    const live = this.live.get(id);
    const awaiting = live?.awaiting;
    if (!live || !awaiting) {
      if (live) throw new RequestError('approval_not_pending', `Run ${id} is ${live.recorder.view.status}; it is not waiting for a decision.`);
      return this.continueWaiting(id, body, by);
    }
    const { pending } = awaiting;
    checkRequest(id, pending, body);
    live.recorder.emit({ type: 'approval_decided', request: pending.request, round: pending.round, ...decisionOf(body, pending), by });
    const decision = roundOf(live.recorder.view, pending.round)?.approval?.decision;
    if (!decision) throw new Error(`the decision on request ${pending.request} was not folded in`);
    awaiting.decided(decision);
    await live.recorder.flushed();
    return decision;
  }

  /**
   * A decision on a run that waits with no process of its own (the one that
   * asked has stopped): this process records it, takes the run over, and
   * goes on from the decided round with the work the log holds, as a fork
   * begins at a round. Nothing changes when the decision is refused.
   */
  private async continueWaiting(id: string, body: ApprovalBody, by: string): Promise<ApprovalDecisionView> {
    const row = await this.store.getRun(id);
    if (!row) throw new RequestError('run_not_found', `There is no run ${id}.`);
    const notWaiting = (why: string) => new RequestError('approval_not_pending', `Run ${id} ${why}; it is not waiting for a decision here.`);
    if (row.status !== 'awaiting_approval') throw notWaiting(`is ${row.status}`);
    // With the run queue, a waiting run is parked, held by no process (claiming it settles a race between two deciders).
    if (!this.queued && ownerAlive(ownerOfRun(row), heldHere('run', id))) throw notWaiting('waits in another process, which takes the decision');
    const { view, created, begin: stored } = await beginningOf(await this.store.events(id), (name) => this.store.getArtifact(id, name));
    const pending = pendingApproval(view);
    if (!pending || !view.limits) throw notWaiting(`is ${view.status}`);
    checkRequest(id, pending, body);
    const rules = { ...rulesOf(await this.planRulesInfo(), view.profile), planLimits: { ...DEFAULT_PLAN_LIMITS, maxSteps: view.limits.maxSteps } };
    const decided = decisionOf(body, { request: pending.request, round: pending.round, judge: (plan) => judgeGivenPlan(view.profile, plan, rules) });
    holdHere('run', id);
    if (!(await this.store.claimRun(id, ownerOfRun(row), thisProcess()))) {
      releaseHere('run', id);
      throw notWaiting('was taken over by another process');
    }
    this.forgetWaiting(id);
    const controller = new AbortController();
    const recorder = this.newRecorder(id, view, controller);
    recorder.emit({ type: 'approval_decided', request: pending.request, round: pending.round, ...decided, by });
    const decision = roundOf(recorder.view, pending.round)?.approval?.decision;
    if (!decision) throw new Error(`the decision on request ${pending.request} was not folded in`);
    if (this.queued) {
      // A worker takes it again and goes on from the decision recorded in its log.
      await recorder.flushed();
      releaseHere('run', id);
      await this.queued.send(id);
      return decision;
    }
    const plan = { ...(pending.goal === null ? {} : { goal: pending.goal }), steps: pending.steps };
    const begin: RunBeginning = {
      work: stored.work,
      start: { stage: 'decided', round: pending.round, decided: approvedPlanOf(decision, plan), lessons: lessonsOf(view) },
    };
    const pinned = created.workspaceIdentity
      ? { path: created.workspace, identity: created.workspaceIdentity }
      : resolveWorkspace(created.workspace, { roots: this.config.workspaceRoots, defaultWorkspace: this.config.workspace });
    this.enqueue(id, recorder, controller, async (live) => {
      const { model, release } = this.modelOnHost(view.model, null);
      try {
        await inRunTrace(created.traceparent, () => this.execute(id, live, recorder, model, pinned, view.limits!, view.strategy, view.profile, begin, true));
      } finally {
        release();
      }
    });
    await recorder.flushed();
    return decision;
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
    begin: RunBeginning,
    approval: boolean,
  ): Promise<void> {
    const timer = new PausableTimer(limits.runTimeoutMs, () => {
      live.stopReason ??= 'timeout';
      live.controller.abort();
    });
    let bridge: LentBridge | null = null;
    try {
      const lease = await this.leaseBridge(live, recorder, workspace, limits);
      if (lease) {
        bridge = new LentBridge(lease.bridge.workspace, lease);
        const lent = bridge;
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
          bridge,
          limits,
          planLimits: { ...DEFAULT_PLAN_LIMITS, maxSteps: limits.maxSteps },
          recorder,
          budget: toolBudget(limits.toolBudget),
          work: begin.work,
          ...(begin.start && { start: begin.start }),
          signal: live.controller.signal,
          abortReason: () => live.stopReason ?? 'cancelled',
          approvals: approval ? { wait: (pending) => this.awaitDecision(live, pending, { timer, bridge: lent, workspace }) } : null,
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
      await this.retire(id, live);
    }
  }

  /**
   * A run waits for a person without holding what other runs need: its slot
   * and its bridge are given back and its time limit stands still, bounded
   * by the approval timeout instead. Once the decision is recorded it waits
   * for a slot (before runs not yet started) and a bridge, and goes on.
   */
  private awaitDecision(
    live: LiveRun,
    pending: ApprovalWait,
    held: { timer: PausableTimer; bridge: LentBridge; workspace: PinnedWorkspace },
  ): Promise<ApprovalDecisionView> {
    const { signal } = live.controller;
    return new Promise<ApprovalDecisionView>((resolve, reject) => {
      held.timer.pause();
      held.bridge.giveBack();
      this.giveUpSlot(live);
      const timeout = setTimeout(
        () => stop(new RunStop('approval_timeout', approvalTimeoutMessage(pending.round, this.config.approvalTimeoutMs))),
        this.config.approvalTimeoutMs,
      );
      const onAbort = () => stop(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = () => {
        clearTimeout(timeout);
        signal.removeEventListener('abort', onAbort);
        live.awaiting = null;
      };
      const stop = (error: Error) => {
        settle();
        reject(error);
      };
      live.awaiting = {
        pending,
        decided: (decision) => {
          settle();
          this.goOn(live, held).then(() => resolve(decision), reject);
        },
        park: () => stop(new RunParked()),
      };
      if (signal.aborted) onAbort();
      else if (this.queued) {
        // With the run queue, a run waiting for a person gives its worker back: the decision, taken in any
        // process, sends it to the queue again. Its approval timeout is kept here meanwhile.
        live.awaiting.park();
        const id = live.recorder.runId;
        void live.recorder
          .flushed()
          .then(() => this.watchWaiting(id))
          .catch(() => undefined);
      }
    });
  }

  /** After a decision: a slot again, then a bridge, then the time limit runs on. */
  private async goOn(live: LiveRun, held: { timer: PausableTimer; bridge: LentBridge; workspace: PinnedWorkspace }): Promise<void> {
    const { signal } = live.controller;
    await new Promise<void>((resolve, reject) => {
      const take = () => {
        signal.removeEventListener('abort', onAbort);
        live.holdsSlot = true;
        resolve();
      };
      const onAbort = () => {
        const at = this.resuming.indexOf(take);
        if (at >= 0) this.resuming.splice(at, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.resuming.push(take);
      this.pump();
    });
    held.bridge.lend(await this.bridges.acquire(held.workspace, { signal, onWait: () => {} }));
    held.timer.resume();
  }

  private giveUpSlot(live: LiveRun): void {
    if (!live.holdsSlot) return;
    live.holdsSlot = false;
    this.running -= 1;
    this.pump();
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
   * the fold of what a reader of the store sees. A run holding a slot gives
   * it to the next one in the queue.
   */
  private async retire(id: string, live: LiveRun): Promise<void> {
    try {
      await live.recorder.flushed();
    } catch (error) {
      process.stderr.write(`planscope: run ${id} stopped: its events could not be stored: ${(error as Error).message}\n`);
    }
    this.live.delete(id);
    releaseHere('run', id);
    // A cancel that came while the run was parking for a decision (the run queue) found nothing left to stop: it ends now, as a waiting run.
    const parkedCancelled = live.stopReason === 'cancelled' && live.recorder.committedView.status === 'awaiting_approval' && (await this.cancelWaiting(id));
    live.settle(parkedCancelled ? foldRun(await this.store.events(id)) : live.recorder.committedView);
    this.giveUpSlot(live);
  }

  /** A run's recorder, publishing on the bus; a store that fails to commit later stops the run through `controller`. */
  private newRecorder(id: string, initial: RunState, controller?: AbortController): RunRecorder {
    return new RunRecorder(id, this.store, (e: RunEvent) => this.bus.publish(id, e), initial, () => controller?.abort());
  }
}

/** What `approval_decided` records of a decision; an edited plan only once the schema and the Validator accept it. */
function decisionOf(body: ApprovalBody, pending: ApprovalWait): { decision: ApprovalBody['decision']; goal?: string; steps?: ProposedStep[]; note?: string } {
  switch (body.decision) {
    case 'approve':
      return { decision: 'approve' };
    case 'reject':
      return { decision: 'reject', note: body.note };
    case 'edit_and_approve': {
      const judged = pending.judge(body.plan);
      if (!judged.parsed || judged.rejections.length > 0) {
        const codes = [...new Set(judged.rejections.map((r) => r.code))].join(', ');
        throw new RequestError('plan_rejected', `The edited plan was refused (${codes}); the run still waits for a decision.`, judged.rejections);
      }
      return { decision: 'edit_and_approve', ...(judged.goal === undefined ? {} : { goal: judged.goal }), steps: judged.steps };
    }
  }
}

/** Which time a stored run is run (`attempt`, 1 when it is created), the most it may be, and the owner it is taken over from. */
export interface Attempts {
  attempt: number;
  maxAttempts: number;
  from: Owner | null;
}

/** Where a fork begins, as `run_created` records it. */
function recordedBegin(start: RunStart): RunBegin {
  switch (start.stage) {
    case 'plan':
      return { stage: 'plan', round: start.round, plan: start.plan, lessons: start.lessons };
    case 'answer':
      return { stage: 'answer' };
    default:
      throw new Error(`a run is not created to begin at the ${start.stage} stage`);
  }
}

/** Everything a run is created with, decided before anything of it is stored. */
interface RunSetup {
  task: string;
  pinned: PinnedWorkspace;
  /** The model asked for when the request names none. */
  model: string;
  strategy: Strategy;
  profile: PlanProfile;
  limits: RunLimits;
  forkedFrom?: ForkedFrom;
  /** The work a fork starts with, recorded as `work_carried`. */
  carried?: EventOf<'work_carried'> extends infer E ? Omit<E, 'seq' | 'at' | 'type'> : never;
  begin: RunBeginning;
}

function approvalTimeoutMessage(round: number, timeoutMs: number): string {
  const minutes = timeoutMs / 60_000;
  return `No decision on the plan of round ${round} came within ${minutes >= 1 ? `${Math.round(minutes)} min` : `${timeoutMs} ms`} (PLANSCOPE_APPROVAL_TIMEOUT_MS).`;
}

/** Only the request the run waits for is answered: a decision on another (decided already, or never made) changes nothing. */
function checkRequest(id: string, pending: { request: string; round: number }, body: ApprovalBody): void {
  if (body.request === pending.request) return;
  throw new RequestError(
    'approval_not_pending',
    `Run ${id} waits for a decision on request ${pending.request} (round ${pending.round}); request ${body.request} was decided already or never made.`,
  );
}

function lastReached(view: RunState): string {
  const round = view.rounds[view.rounds.length - 1];
  if (!round) return 'it had not planned yet';
  const step = [...round.steps].reverse().find((s) => s.status !== 'pending');
  if (step) return `last reached: round ${round.round}, step ${step.index + 1} (${step.path}, ${step.status})`;
  return `last reached: round ${round.round}, planning`;
}
