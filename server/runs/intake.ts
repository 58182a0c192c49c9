import { RunEvent, type EventOf, type ForkedFrom, type PlanProfile, type RecordedRunStart, type RunLimits, type Strategy } from '../../lib/events';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import { rulesOf, type PlanRulesInfo } from '../../lib/plan-judgement';
import { RunRequest, type ForkRequest } from '../../lib/run-request';
import { emptyRun } from '../../lib/run-state';
import type { Config } from '../config';
import { runLimits } from './run-limits';
import { completedWork } from '../engine/completed-work';
import { planRules } from '../engine/profiles/profile';
import type { RunStart } from '../engine/run-start';
import { parseOrRefuse, RequestError } from '../errors';
import type { HostChoice } from '../llm/host-choice';
import { readyModel } from '../llm/readiness';
import { resolveModel } from '../llm/resolve';
import type { Model } from '../llm/types';
import { holdHere, releaseHere, type KnownOwner } from '../store/owner';
import type { RunStore } from '../store/run-store';
import type { RunStartInput } from './run-start-from-log';
import type { RunTools } from './execution';
import { prepareFork } from './fork';
import type { NewRecorder } from './live-run';
import { newRunId } from './run-id';
import { resolveWorkspace, type PinnedWorkspace, type WorkspacePolicy } from './workspace';
import { newRunTraceparent } from '../telemetry/trace-context';

export interface IntakeParts {
  config: Config;
  /** This runtime as the owner of the runs it records (its worker's id). */
  owner: KnownOwner;
  /** The workspaces runs may use here, the default one pinned as the registry started: what posting and running a run are judged by. */
  workspacePolicy: WorkspacePolicy;
  store: RunStore;
  tools: () => Promise<RunTools>;
  hosts: HostChoice;
  newRecorder: NewRecorder;
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
  /** What it begins with; it has used nothing yet (a fork's usage is its own, from its own log). */
  startInput: Omit<RunStartInput, 'used'>;
}

/**
 * Where a run comes from, said by the code that starts it, never by its request: `by` is who started it (as
 * `run_created` records it), `evalId` the evaluation it is an item of (so no client can mark a run as one).
 */
export interface RunOrigin {
  by?: string;
  evalId?: string;
}

/** A run's request judged and the run stored, new or a fork, ready for any process to run; and the rules plans are judged by. */
export class RunIntake {
  constructor(private readonly parts: IntakeParts) {}

  /**
   * The run created (see `RunRegistry.create`), still held by this process,
   * the model as its readiness check found it, and its log as stored (null
   * when a later event of it was not stored: then only the store knows).
   */
  async createHeld(input: unknown, origin: RunOrigin = {}): Promise<{ id: string; model: Model; log: RunEvent[] | null }> {
    const { config, store, hosts } = this.parts;
    const request = this.parseRequest(input);
    const setup = request.fork ? await this.forkSetup(request, request.fork) : this.newRunSetup(request);
    const { task, pinned, strategy, profile, startInput } = setup;
    const approval = request.approval ?? null;
    if (approval && strategy !== 'plan-execute') {
      throw new RequestError('invalid_request', 'approval: only a plan-execute run has plans to approve.');
    }
    // Nothing of a plan is read before a person approves it.
    const limits = approval ? { ...setup.limits, readAhead: false } : setup.limits;
    // Checked, and named in `run_created`, at a host that has the model; the host the run's calls go to is chosen as it starts.
    const modelName = request.model ?? setup.model;
    const host = hosts.leastBusyHost(modelName);
    const model = await readyModel(config, resolveModel(modelName, config, host), host);
    const id = newRunId();
    const traceparent = config.telemetry.traces ? newRunTraceparent() : undefined;
    const { owner } = this.parts;
    // Held before its row exists: recovery in this process (another runtime) must never take it for an orphan.
    holdHere('run', id);
    // Not awaited here: the row commits with the first events below, in the same batch.
    const created = store.createRun({
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
      evalId: origin.evalId ?? null,
    });
    const recorder = this.parts.newRecorder(id, emptyRun);
    const log: RunEvent[] = [];
    log.push(recorder.emit({
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
      ...(startInput.start && { begin: recordedStart(startInput.start) }),
      ...(origin.by !== undefined && { by: origin.by }),
    }));
    if (setup.carried) {
      // The fork keeps its own copy of each observation it starts with: its log and artifacts stand alone.
      for (const o of startInput.work.observations.values()) recorder.artifact(o.meta.artifact, o.text);
      log.push(recorder.emit({ type: 'work_carried', ...setup.carried }));
    }
    // With a store that commits later, the id is handed out once the run's first events are stored, as with one that commits at once.
    try {
      await created;
      await recorder.flushed();
    } catch (error) {
      // One whose first event was not stored cannot be shown at all; a later event that failed leaves a run that can still be run.
      if (recorder.committedView.lastSeq === 0) {
        releaseHere('run', id);
        throw error;
      }
      return { id, model, log: null };
    }
    // As a read of the store gives them back (defaults filled in), without the read.
    return { id, model, log: log.map((event) => RunEvent.parse(event)) };
  }

  /** The rules plans are judged by, as plain data: what the fork editor in the browser validates with, and forks are judged by. */
  async planRulesInfo(): Promise<PlanRulesInfo> {
    const { config } = this.parts;
    const tools = await this.parts.tools();
    const rules = planRules({
      planLimits: DEFAULT_PLAN_LIMITS,
      pathPolicy: config.pathPolicy,
      workspaceTools: tools.workspace,
      externalTools: tools.external,
    });
    const { added, removed } = config.pathPolicy;
    return { maxSteps: config.maxSteps, deny: { added: [...added], removed: [...removed] }, tools: rules.tools, notOffered: [...rules.notOffered] };
  }

  /**
   * The one place a task's length is judged, before the schema: an over-long
   * task is a 413 task_too_long whatever else is wrong with the request.
   */
  private parseRequest(input: unknown): RunRequest {
    const { maxTaskChars } = this.parts.config;
    const task = typeof input === 'object' && input !== null ? (input as { task?: unknown }).task : undefined;
    const length = typeof task === 'string' ? task.trim().length : 0;
    if (length > maxTaskChars) {
      throw new RequestError('task_too_long', `The task is ${length} characters; the limit is ${maxTaskChars}.`);
    }
    return parseOrRefuse(RunRequest, input, 'request');
  }

  /** A new run: the request's task in its workspace, from round 1 with nothing done. */
  private newRunSetup(request: RunRequest): RunSetup {
    const { config } = this.parts;
    const pinned = resolveWorkspace(request.workspace ?? config.workspace, this.parts.workspacePolicy);
    const profile = request.profile ?? 'file';
    return {
      task: request.task ?? '',
      pinned,
      model: config.model,
      strategy: request.strategy ?? 'plan-execute',
      profile,
      limits: runLimits(config, { profile, maxRounds: request.maxRounds }),
      startInput: { work: completedWork() },
    };
  }

  /** A fork: its parent's task and workspace, starting where the request says with the work its parent had done by then. */
  private async forkSetup(request: RunRequest, fork: ForkRequest): Promise<RunSetup> {
    const { config } = this.parts;
    const choices = { strategy: request.strategy, profile: request.profile, maxRounds: request.maxRounds };
    const info = await this.planRulesInfo();
    const rulesFor = (profile: PlanProfile) => rulesOf(info, profile);
    const setup = await prepareFork(this.parts.store, fork, choices, rulesFor);
    const pinned = resolveWorkspace(setup.parent.workspace, this.parts.workspacePolicy);
    return {
      task: setup.parent.task,
      pinned,
      model: setup.parent.model,
      strategy: setup.strategy,
      profile: setup.profile,
      limits: runLimits(config, { profile: setup.profile, maxRounds: setup.maxRounds }),
      forkedFrom: setup.forkedFrom,
      carried: setup.carried,
      startInput: { work: setup.work, start: setup.start },
    };
  }
}

/** Where a fork begins, as `run_created` records it. */
function recordedStart(start: RunStart): RecordedRunStart {
  switch (start.stage) {
    case 'plan':
      return { stage: 'plan', round: start.round, plan: start.plan, lessons: start.lessons };
    case 'answer':
      return { stage: 'answer' };
    default:
      throw new Error(`a run is not created to begin at the ${start.stage} stage`);
  }
}
