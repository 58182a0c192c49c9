import type { RunErrorCode } from '../../lib/codes';
import type { CallLabel, CallOptions, PlanProfile, RunLimits, Strategy } from '../../lib/events';
import type { ToolSpec } from '../../lib/general-plan';
import type { PlanLimits } from '../../lib/plan';
import type { PathPolicy } from '../../lib/policy';
import type { Model } from '../llm/types';
import type { WorkspaceBridge } from '../mcp/types';
import type { CompletedWork, EventSink, PlanApprovals, ToolBudget } from './ports';
import type { RunStart } from './run-start';
import type { ExternalTools } from './tools';
import { PlanscopeError } from '../errors';

/** Everything one run's loop needs, passed down rather than looked up. */
export interface RunContext {
  task: string;
  strategy: Strategy;
  profile: PlanProfile;
  /** The workspace bridge's own tools (read_file, list_files) as its server lists them, for general plans. */
  workspaceTools: readonly ToolSpec[];
  /** Tools of other MCP servers, for general plans. */
  externalTools: ExternalTools;
  /** Whether the Reviewer pass runs after the Checker. */
  review: boolean;
  /** The configured deny-list the Validator and read-ahead judge paths by (the bridge holds the same one). */
  pathPolicy: PathPolicy;
  /** Whether other servers' tool results are checked for secrets (the bridge checks files itself). */
  secretScan: boolean;
  model: Model;
  /** What each role's model calls ask for (sampling, `think`, context size); recorded on every call. */
  callOptions: Readonly<Record<CallLabel, CallOptions>>;
  bridge: WorkspaceBridge;
  limits: RunLimits;
  planLimits: PlanLimits;
  recorder: EventSink;
  /** Spent by every tool call of the run, listing the workspace included. */
  budget: ToolBudget;
  /** Observations and reasoning results, kept across rounds; a run that starts later begins with what was done before. */
  work: CompletedWork;
  /** Set when each accepted plan waits for a person's approval before it runs. */
  approvals: PlanApprovals | null;
  /** Where the run begins when not at round 1 with nothing done (a fork, a resumed run). */
  start?: RunStart;
  /** Aborted on cancellation or when the run's timeout fires. */
  signal: AbortSignal;
  /** Tells which of the two it was, once `signal` is aborted. */
  abortReason(): 'cancelled' | 'timeout';
}

/** A run ends early with a stable code; the loop turns it into `run_finished`. */
export class RunStop extends PlanscopeError {
  constructor(
    readonly code: RunErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RunStop';
  }
}

/**
 * The run stops here without ending: it waits for a person while the process
 * shuts down. Its log says it is awaiting approval, and a process started
 * later continues it once the decision comes.
 */
export class RunParked extends PlanscopeError {
  constructor() {
    super('The run is waiting for approval; this process is stopping.');
    this.name = 'RunParked';
  }
}

/** Ends the run with `cancelled` or `timeout` once its signal has fired. */
export function stopIfAborted(ctx: RunContext): void {
  if (!ctx.signal.aborted) return;
  const reason = ctx.abortReason();
  throw new RunStop(
    reason,
    reason === 'cancelled' ? 'The run was cancelled.' : `The run hit its time limit of ${Math.round(ctx.limits.runTimeoutMs / 1000)} s.`,
  );
}
