import type { ErrorInfo } from '../../lib/codes';
import type { ProposedStep } from '../../lib/events';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import { judgeGivenPlan, rulesOf, type PlanRulesInfo } from '../../lib/plan-judgement';
import { foldRun, pendingApproval, roundOf, type ApprovalDecisionView } from '../../lib/run-state';
import { ApprovalBody } from '../../lib/approval';
import type { Config } from '../config';
import { approvedPlanOf } from '../engine/approval';
import { RunParked, RunStop } from '../engine/context';
import type { ApprovalWait } from '../engine/ports';
import { lessonsOf } from '../engine/start-point';
import { parseOrRefuse, RequestError } from '../errors';
import { heldHere, holdHere, ownerAlive, releaseHere, type KnownOwner } from '../store/owner';
import { ownerOfRun } from '../store/run-columns';
import type { RunStore } from '../store/run-store';
import { runStartFromLog, type RunStartInput } from './run-start-from-log';
import type { BridgePool } from './bridge-pool';
import { adoptionOf, type RunBus } from './bus';
import type { DecisionWait, GoingOn, HeldWhileWaiting, LiveRun, NewRecorder } from './live-run';
import type { QueuedRuns } from './queued';
import type { RunRecorder } from './recorder';
import type { RunSlots } from './slots';
import { pinnedOf, type WorkspacePolicy } from './workspace';

export interface DeskParts {
  config: Config;
  /** This runtime as the owner of the runs it records (its worker's id). */
  owner: KnownOwner;
  /** The workspaces runs may use here, the default one pinned as the registry started: what posting and running a run are judged by. */
  workspacePolicy: WorkspacePolicy;
  store: RunStore;
  /** Where this process says which runs it records: a run parked on the queue is no longer one. */
  bus: RunBus;
  bridges: BridgePool;
  slots: RunSlots<LiveRun>;
  live: ReadonlyMap<string, LiveRun>;
  queued: QueuedRuns | null;
  newRecorder: NewRecorder;
  /** The rules an edited plan is judged by. */
  planRulesInfo: () => Promise<PlanRulesInfo>;
  /** A run decided here with no process of its own goes on here. */
  goOnHere: (recorder: RunRecorder, controller: AbortController, run: GoingOn) => void;
}

/**
 * People's decisions on the plans runs wait for, and the waits themselves:
 * a run live here waiting (holding nothing other runs need), and runs
 * waiting with no process of their own, whose approval timeouts this
 * process keeps.
 */
export class ApprovalDesk implements DecisionWait {
  /** The approval timeouts of runs waiting with no process of their own, found at recovery: this process ends them. */
  private readonly waitingElsewhere = new Map<string, NodeJS.Timeout>();

  constructor(private readonly parts: DeskParts) {}

  /**
   * Records a person's decision on the plan a run waits for, and lets the run
   * go on. Only the request the run waits for is answered, once: a repeated,
   * late or unknown one is refused (`approval_not_pending`) and changes
   * nothing. An edited plan the schema or the Validator refuses is refused
   * with its rejections (`plan_rejected`), and the run keeps waiting.
   */
  async decide(id: string, input: unknown, by: string): Promise<ApprovalDecisionView> {
    const body = parseOrRefuse(ApprovalBody, input, 'decision');
    const live = this.parts.live.get(id);
    const awaiting = live?.awaiting;
    if (!live || !awaiting) {
      if (live) throw new RequestError('approval_not_pending', `Run ${id} is ${live.recorder.view.status}; it is not waiting for a decision.`);
      return this.continueWaiting(id, body, by);
    }
    const { pending } = awaiting;
    checkRequest(id, pending, body);
    const decision = recordDecision(live.recorder, pending, decisionOf(body, pending), by);
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
    const { store, queued } = this.parts;
    const row = await store.getRun(id);
    if (!row) throw new RequestError('run_not_found', `There is no run ${id}.`);
    const notWaiting = (why: string) => new RequestError('approval_not_pending', `Run ${id} ${why}; it is not waiting for a decision here.`);
    if (row.status !== 'awaiting_approval') throw notWaiting(`is ${row.status}`);
    // With the run queue, a waiting run is parked, held by no process (claiming it settles a race between two deciders).
    if (!queued && ownerAlive(ownerOfRun(row), heldHere('run', id))) throw notWaiting('waits in another process, which takes the decision');
    const { view, created, startInput: stored } = await runStartFromLog(await store.events(id), (name) => store.getArtifact(id, name));
    const pending = pendingApproval(view);
    if (!pending || !view.limits) throw notWaiting(`is ${view.status}`);
    checkRequest(id, pending, body);
    const rules = { ...rulesOf(await this.parts.planRulesInfo(), view.profile), planLimits: { ...DEFAULT_PLAN_LIMITS, maxSteps: view.limits.maxSteps } };
    const decided = decisionOf(body, { request: pending.request, round: pending.round, judge: (plan) => judgeGivenPlan(view.profile, plan, rules) });
    holdHere('run', id);
    if (!(await store.claimRun(id, ownerOfRun(row), this.parts.owner))) {
      releaseHere('run', id);
      throw notWaiting('was taken over by another process');
    }
    this.forgetWaiting(id);
    const controller = new AbortController();
    const recorder = this.parts.newRecorder(id, view, controller);
    const decision = recordDecision(recorder, pending, decided, by);
    if (queued) {
      // A worker takes it again and goes on from the decision recorded in its log.
      await recorder.flushed();
      releaseHere('run', id);
      await queued.send(id);
      return decision;
    }
    const plan = { ...(pending.goal === null ? {} : { goal: pending.goal }), steps: pending.steps };
    const startInput: RunStartInput = {
      work: stored.work,
      used: stored.used,
      start: { stage: 'decided', round: pending.round, decided: approvedPlanOf(decision, plan), lessons: lessonsOf(view) },
    };
    this.parts.goOnHere(recorder, controller, { view, created, startInput, pinned: pinnedOf(created, this.parts.workspacePolicy) });
    await recorder.flushed();
    return decision;
  }

  /**
   * A run waits for a person without holding what other runs need: its slot
   * and its bridge are given back and its time limit stands still, bounded
   * by the approval timeout instead. Once the decision is recorded it waits
   * for a slot (before runs not yet started) and a bridge, and goes on.
   */
  wait(live: LiveRun, pending: ApprovalWait, held: HeldWhileWaiting): Promise<ApprovalDecisionView> {
    const { config, slots, queued } = this.parts;
    const { signal } = live.controller;
    return new Promise<ApprovalDecisionView>((resolve, reject) => {
      held.timer.pause();
      held.bridge.giveBack();
      slots.giveUp(live);
      const timeout = setTimeout(
        () => stop(new RunStop('approval_timeout', approvalTimeoutMessage(pending.round, config.approvalTimeoutMs))),
        config.approvalTimeoutMs,
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
      else if (queued) {
        // With the run queue, a run waiting for a person gives its worker back: the decision, taken in any
        // process, sends it to the queue again. Its approval timeout is kept here meanwhile.
        live.awaiting.park();
        const id = live.recorder.runId;
        // Whoever takes it after the decision counts and traces it.
        this.parts.bus.letGo(id);
        void live.recorder
          .flushed()
          .then(() => this.watchWaiting(id))
          .catch(() => undefined);
      }
    });
  }

  /** After a decision: a slot again, then a bridge, then the time limit runs on. */
  private async goOn(live: LiveRun, held: HeldWhileWaiting): Promise<void> {
    const { signal } = live.controller;
    await this.parts.slots.takeAgain(live, signal);
    held.bridge.lend(await this.parts.bridges.acquire(held.workspace, { signal, onWait: () => {} }));
    held.timer.resume();
  }

  /** Keeps the approval timeout of a run that waits with no process of its own, counted from its request. */
  async watchWaiting(id: string): Promise<void> {
    const { config, store } = this.parts;
    const pending = pendingApproval(foldRun(await store.events(id)));
    if (!pending || this.waitingElsewhere.has(id)) return;
    const left = Math.max(0, pending.requestedAt + config.approvalTimeoutMs - Date.now());
    const timer = setTimeout(() => {
      this.waitingElsewhere.delete(id);
      void this.endWaiting(id, 'failed', { code: 'approval_timeout', message: approvalTimeoutMessage(pending.round, config.approvalTimeoutMs) }).catch(
        (error: unknown) => process.stderr.write(`planscope: run ${id} was not ended approval_timeout: ${(error as Error).message}\n`),
      );
    }, left);
    timer.unref();
    this.waitingElsewhere.set(id, timer);
  }

  /** This process stops: the approval timeouts it kept are left to the processes that go on. */
  stopWatching(): void {
    for (const id of [...this.waitingElsewhere.keys()]) this.forgetWaiting(id);
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
    const { store, queued } = this.parts;
    const row = await store.getRun(id);
    if (row?.status !== 'awaiting_approval' || this.parts.live.has(id)) return false;
    // With the run queue, a waiting run is parked: its owner may live on, holding it no more.
    if (!queued && ownerAlive(ownerOfRun(row), heldHere('run', id))) return false;
    holdHere('run', id);
    try {
      if (!(await store.claimRun(id, ownerOfRun(row), this.parts.owner))) return false;
      this.forgetWaiting(id);
      const events = await store.events(id);
      const recorder = this.parts.newRecorder(id, foldRun(events));
      if (recorder.view.status !== 'awaiting_approval') return false;
      // Ended here: counted here, whoever created it.
      const adopted = adoptionOf(events, recorder.view.status);
      if (adopted) this.parts.bus.adopt(id, adopted);
      recorder.emit({ type: 'run_finished', status, error });
      await recorder.flushed();
      return true;
    } finally {
      releaseHere('run', id);
    }
  }
}

type Decided = { decision: ApprovalBody['decision']; goal?: string; steps?: ProposedStep[]; note?: string };

/** Records `approval_decided` for the request a run waits for, and gives back the decision as the fold now holds it. */
function recordDecision(recorder: RunRecorder, pending: { request: string; round: number }, decided: Decided, by: string): ApprovalDecisionView {
  recorder.emit({ type: 'approval_decided', request: pending.request, round: pending.round, ...decided, by });
  const decision = roundOf(recorder.view, pending.round)?.approval?.decision;
  if (!decision) throw new Error(`the decision on request ${pending.request} was not folded in`);
  return decision;
}

/** What `approval_decided` records of a decision; an edited plan only once the schema and the Validator accept it. */
function decisionOf(body: ApprovalBody, pending: ApprovalWait): Decided {
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
