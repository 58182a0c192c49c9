import type { RunLimits } from '../../lib/events';
import type { PlanLimits } from '../../lib/plan';
import type { Model } from '../llm/types';
import type { WorkspaceBridge } from '../mcp/types';
import type { RunRecorder } from '../runs/recorder';

/** Everything one run's loop needs, passed down rather than looked up. */
export interface RunContext {
  task: string;
  model: Model;
  bridge: WorkspaceBridge;
  limits: RunLimits;
  planLimits: PlanLimits;
  recorder: RunRecorder;
  /** Aborted on cancellation or when the run's timeout fires. */
  signal: AbortSignal;
  /** Tells which of the two it was, once `signal` is aborted. */
  abortReason(): 'cancelled' | 'timeout';
}

/** A run ends early with a stable code; the loop turns it into `run_finished`. */
export class RunStop extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RunStop';
  }
}
