import type { RunEvent } from '../../lib/events';
import type { RunState } from '../../lib/run-state';
import { RequestError } from '../errors';
import type { HostChoice } from '../llm/host-choice';
import type { Model } from '../llm/types';
import { holdHere, releaseHere, type KnownOwner } from '../store/owner';
import type { RunStore } from '../store/run-store';
import { inRunTrace } from '../telemetry/trace-context';
import type { ApprovalDesk } from './approval-desk';
import type { RunBus } from './bus';
import type { RunExecution } from './execution';
import type { GoingOn, LiveRun, NewRecorder } from './live-run';
import type { RunRecorder } from './recorder';
import { takenOver, type Attempts } from './recovery';
import { runStartFromLog } from './run-start-from-log';
import type { RunSlots } from './slots';
import { pinnedOf, type WorkspacePolicy } from './workspace';

export interface LocalRunnerParts {
  owner: KnownOwner;
  workspacePolicy: WorkspacePolicy;
  store: RunStore;
  bus: RunBus;
  hosts: HostChoice;
  slots: RunSlots<LiveRun>;
  /** The runs live here; a run going on here joins it. */
  live: Map<string, LiveRun>;
  execution: RunExecution;
  desk: ApprovalDesk;
  newRecorder: NewRecorder;
}

/**
 * A stored run run in this process (the registry's `start` and `runStored`):
 * claimed from the owner it is taken over from, read from its log, adopted
 * by this process's gauges and trace, then live, queued for a slot, and
 * executed at the host chosen as it starts.
 */
export class LocalRunner {
  constructor(private readonly parts: LocalRunnerParts) {}

  /**
   * `log`: the run's events as this process has just stored them, creating
   * it and holding it since (so nothing else has appended to it): its
   * beginning is read from them, not from the store again.
   */
  async run(id: string, attempts: Attempts, ready: Model | null, log: RunEvent[] | null = null): Promise<{ id: string }> {
    const { store, owner, newRecorder, desk, bus, workspacePolicy, live } = this.parts;
    const { from } = attempts;
    if (from) {
      holdHere('run', id);
      if (!(await store.claimRun(id, from, owner))) {
        releaseHere('run', id);
        throw new RequestError('run_not_claimed', `Run ${id} is not owned by the process it was to be taken over from (pid ${from.pid ?? '?'} on ${from.host ?? '?'}).`);
      }
    }
    try {
      const events = log ?? (await store.events(id));
      if (events.length === 0) throw new RequestError('run_not_found', `There is no run ${id}.`);
      const { view, created, startInput, resume } = await runStartFromLog(events, (name) => store.getArtifact(id, name));
      const controller = new AbortController();
      const recorder = newRecorder(id, view, controller);
      if (!resume) {
        releaseHere('run', id);
        // Taken over while it waits for a person: this process now keeps its approval timeout.
        if (view.status === 'awaiting_approval') await desk.watchWaiting(id);
        return { id };
      }
      // Recorded here from now on: counted and traced here, as its log has it, wherever it was created.
      bus.adopt(id, { created, status: view.status });
      const pinned = pinnedOf(created, workspacePolicy);
      if (!(await takenOver(recorder, view, resume, attempts, pinned))) {
        releaseHere('run', id);
        return { id };
      }
      this.goOn(recorder, controller, { view, created, startInput, pinned }, ready);
      // A store that failed to commit has stopped the run already; its first events were stored when it was created.
      await recorder.flushed().catch(() => undefined);
      return { id };
    } catch (error) {
      if (!live.has(id)) releaseHere('run', id);
      throw error;
    }
  }

  /** A stored run goes on here from its beginning: live, queued for a slot, then executed at the host chosen as it starts. */
  goOn(recorder: RunRecorder, controller: AbortController, { view, created, startInput, pinned }: GoingOn, ready: Model | null): void {
    const { hosts, execution, slots } = this.parts;
    const limits = view.limits ?? created.limits;
    let settle!: (view: RunState) => void;
    const done = new Promise<RunState>((resolve) => (settle = resolve));
    const live: LiveRun = { recorder, controller, stopReason: null, awaiting: null, done, settle };
    this.parts.live.set(recorder.runId, live);
    const run = async () => {
      const { model, release } = await hosts.modelOnHost(view.model, ready);
      const plan = { live, model, workspace: pinned, limits, strategy: view.strategy, profile: view.profile, startInput, approval: view.approval !== null };
      try {
        // Every call the run makes (to Ollama, to MCP servers) carries its trace from here on.
        await inRunTrace(created.traceparent, () => execution.execute(plan));
      } finally {
        release();
      }
    };
    slots.enqueue(live, () => void run());
  }
}
