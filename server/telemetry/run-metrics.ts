import type { CallLabel, EventOf, RunEvent, RunStatus } from '../../lib/events';
import { Counter, Gauge, Histogram, renderMetrics, type Labels } from './metric-registry';

/**
 * planscope's metrics, counted from the runs' events as they are published
 * in this process, of the runs it records (created here and not sent to the
 * run queue, or adopted: taken from it), so that summed over processes each
 * run counts once: runs by status and model, run and model-call durations,
 * tokens, rejections and step failures by code, cache reuse, queue depth,
 * running runs and open event streams. Served as Prometheus text by
 * `GET /api/metrics`, and mirrored to OTLP when an exporter is configured.
 */

/** One metric's names: Prometheus's, and the OpenTelemetry instrument's with its unit. */
export interface MetricNames {
  name: string;
  otel: string;
  unit: string;
  help: string;
}

const RUN_SECONDS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800];
const CALL_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export const METRICS = {
  runs: { name: 'planscope_runs_total', otel: 'planscope.runs', unit: '{run}', help: 'Runs ended, by final status and model.' },
  runDuration: { name: 'planscope_run_duration_seconds', otel: 'planscope.run.duration', unit: 's', help: 'Run wall time from creation (queue included) to its end, by final status and model.' },
  llmCallDuration: { name: 'planscope_llm_call_duration_seconds', otel: 'planscope.llm.call.duration', unit: 's', help: 'Model call duration, by role (planner, synthesizer, ...) and model.' },
  tokens: { name: 'planscope_llm_tokens_total', otel: 'planscope.llm.tokens', unit: '{token}', help: 'Tokens the model reported, by role, model and type (input or output).' },
  rejections: { name: 'planscope_rejections_total', otel: 'planscope.rejections', unit: '{rejection}', help: 'Plan steps (or whole plans) the Validator rejected, by code.' },
  stepFailures: { name: 'planscope_step_failures_total', otel: 'planscope.step.failures', unit: '{step}', help: 'Accepted steps that failed, by code.' },
  cacheReuse: { name: 'planscope_cache_reuse_total', otel: 'planscope.cache.reuses', unit: '{step}', help: 'Steps answered by an unchanged earlier observation instead of a new read.' },
  queued: { name: 'planscope_runs_queued', otel: 'planscope.runs.queued', unit: '{run}', help: 'Runs waiting for a free slot.' },
  running: { name: 'planscope_runs_running', otel: 'planscope.runs.running', unit: '{run}', help: 'Runs in flight.' },
  awaitingApproval: { name: 'planscope_runs_awaiting_approval', otel: 'planscope.runs.awaiting_approval', unit: '{run}', help: 'Runs waiting for a person to decide on their plan; they hold no slot.' },
  sseClients: { name: 'planscope_sse_clients', otel: 'planscope.sse.clients', unit: '{client}', help: 'Open Server-Sent Events streams of runs.' },
} as const satisfies Record<string, MetricNames>;

export const HISTOGRAM_BUCKETS = { runDuration: RUN_SECONDS, llmCallDuration: CALL_SECONDS } as const;

export type CounterKey = 'runs' | 'tokens' | 'rejections' | 'stepFailures' | 'cacheReuse';
export type HistogramKey = keyof typeof HISTOGRAM_BUCKETS;
export type GaugeKey = 'queued' | 'running' | 'awaitingApproval' | 'sseClients';

/** The run status each run gauge counts. */
const GAUGED_STATUS = { queued: 'queued', running: 'running', awaitingApproval: 'awaiting_approval' } as const;

/** The OTLP side: the same updates, to OpenTelemetry instruments (server/telemetry/otel-sdk.ts). */
export interface MetricMirror {
  add(key: CounterKey, value: number, labels: Record<string, string>): void;
  record(key: HistogramKey, value: number, labels: Record<string, string>): void;
}

type MirrorUpdate = ['add', CounterKey, number, Record<string, string>] | ['record', HistogramKey, number, Record<string, string>];

/**
 * Distinct model names that keep their own label; runs of any model seen after them are counted as `other`.
 * A model is any name a request gives (up to 200 characters), and every name would otherwise add a series to
 * each of four metrics, for as long as the process runs: 30 names made `/api/metrics` 25 times larger.
 */
export const MAX_MODEL_LABELS = 20;
export const OTHER_MODEL_LABEL = 'other';

/** Updates kept while the OpenTelemetry SDK loads; past this many, the oldest are dropped. */
const MAX_PENDING_MIRROR_UPDATES = 10_000;

interface RunState {
  model: string;
  status: (typeof GAUGED_STATUS)[keyof typeof GAUGED_STATUS];
  createdAt: number;
  calls: Map<string, CallLabel>;
}

export class RunMetrics {
  private readonly runs = new Map<string, RunState>();
  /** The models that have a label of their own, in the order they were first seen. */
  private readonly labelledModels = new Set<string>();
  private sse = 0;
  private mirror: MetricMirror | null = null;
  /** Updates made before the mirror was attached, when one is expected. */
  private pending: MirrorUpdate[] | null = null;

  private readonly runsEnded = new Counter({ ...METRICS.runs, labels: ['status', 'model'] });
  private readonly runDuration = new Histogram({ ...METRICS.runDuration, labels: ['status', 'model'] }, RUN_SECONDS);
  private readonly callDuration = new Histogram({ ...METRICS.llmCallDuration, labels: ['role', 'model'] }, CALL_SECONDS);
  private readonly tokens = new Counter({ ...METRICS.tokens, labels: ['role', 'model', 'type'] });
  private readonly rejections = new Counter({ ...METRICS.rejections, labels: ['code'] });
  private readonly stepFailures = new Counter({ ...METRICS.stepFailures, labels: ['code'] });
  private readonly cacheReuse = new Counter({ ...METRICS.cacheReuse, labels: [] });
  private readonly all = [
    this.runsEnded,
    this.runDuration,
    this.callDuration,
    this.tokens,
    this.rejections,
    this.stepFailures,
    this.cacheReuse,
    new Gauge(METRICS.queued, () => this.gauge('queued')),
    new Gauge(METRICS.running, () => this.gauge('running')),
    new Gauge(METRICS.awaitingApproval, () => this.gauge('awaitingApproval')),
    new Gauge(METRICS.sseClients, () => this.gauge('sseClients')),
  ];

  /** A mirror is on its way (the SDK is loading): keep the updates made meanwhile for it. */
  expectMirror(): void {
    this.pending ??= [];
  }

  /** Every update so far and from now on also goes to these OpenTelemetry instruments. */
  mirrorTo(mirror: MetricMirror): void {
    this.mirror = mirror;
    for (const update of this.pending ?? []) {
      if (update[0] === 'add') mirror.add(update[1], update[2], update[3]);
      else mirror.record(update[1], update[2], update[3]);
    }
    this.pending = null;
  }

  gauge(key: GaugeKey): number {
    if (key === 'sseClients') return this.sse;
    const status = GAUGED_STATUS[key];
    let count = 0;
    for (const run of this.runs.values()) if (run.status === status) count += 1;
    return count;
  }

  /** An event stream of a run opened; call the returned function when it closes. */
  sseClientOpened(): () => void {
    this.sse += 1;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.sse -= 1;
    };
  }

  render(): string {
    return renderMetrics(this.all);
  }

  /**
   * This process records the run from now on, taken from the queue or over
   * from another process: counted from where its log is, with its model and
   * creation time (its duration is the run's, not this process's part).
   */
  adopt(runId: string, { created, status }: { created: EventOf<'run_created'>; status: RunStatus }): void {
    if (this.runs.has(runId)) return;
    const gauged = status === 'queued' || status === 'awaiting_approval' ? status : 'running';
    this.runs.set(runId, { model: this.modelLabel(created.model), status: gauged, createdAt: created.at, calls: new Map() });
  }

  /**
   * This process records no more of the run: sent to the run queue (or
   * handed back to it) it is counted `queued` here, parked for a person
   * `awaiting_approval`, until a process takes it (then `forget`). False
   * when this process does not count the run.
   */
  handOver(runId: string): boolean {
    const run = this.runs.get(runId);
    if (!run) return false;
    if (run.status !== 'awaiting_approval') run.status = 'queued';
    return true;
  }

  /** A process took the run this one handed over: that process counts it from now on. */
  forget(runId: string): void {
    this.runs.delete(runId);
  }

  handle(runId: string, event: RunEvent): void {
    if (event.type === 'run_created') {
      this.runs.set(runId, { model: this.modelLabel(event.model), status: 'queued', createdAt: event.at, calls: new Map() });
      return;
    }
    // Runs this process neither created nor adopted (recovered as interrupted at start-up) are not counted.
    const run = this.runs.get(runId);
    if (!run) return;
    switch (event.type) {
      case 'run_started':
      case 'approval_decided':
        run.status = 'running';
        return;
      case 'approval_requested':
        run.status = 'awaiting_approval';
        return;
      case 'llm_call_started':
        run.calls.set(event.call, event.label);
        return;
      case 'llm_call_finished': {
        const role = run.calls.get(event.call) ?? 'planner';
        run.calls.delete(event.call);
        this.observe(this.callDuration, 'llmCallDuration', { role, model: run.model }, event.durationMs / 1000);
        if (event.promptTokens !== null) this.count(this.tokens, 'tokens', { role, model: run.model, type: 'input' }, event.promptTokens);
        if (event.evalTokens !== null) this.count(this.tokens, 'tokens', { role, model: run.model, type: 'output' }, event.evalTokens);
        return;
      }
      case 'plan_rejected':
        for (const rejection of event.rejections) this.count(this.rejections, 'rejections', { code: rejection.code });
        return;
      case 'step_failed':
        this.count(this.stepFailures, 'stepFailures', { code: event.code });
        return;
      case 'step_reasoned':
        if (event.status === 'failed') this.count(this.stepFailures, 'stepFailures', { code: 'reasoning_failed' });
        return;
      case 'step_cached':
        this.count(this.cacheReuse, 'cacheReuse', {});
        return;
      case 'run_finished': {
        this.runs.delete(runId);
        const labels = { status: event.status, model: run.model };
        this.count(this.runsEnded, 'runs', labels);
        this.observe(this.runDuration, 'runDuration', labels, (event.at - run.createdAt) / 1000);
        return;
      }
      default:
        return;
    }
  }

  /** The first MAX_MODEL_LABELS models keep their name; the rest share `other`. */
  private modelLabel(model: string): string {
    if (this.labelledModels.has(model)) return model;
    if (this.labelledModels.size >= MAX_MODEL_LABELS) return OTHER_MODEL_LABEL;
    this.labelledModels.add(model);
    return model;
  }

  private count<L extends string>(counter: Counter<L>, key: CounterKey, labels: Labels<L>, value = 1): void {
    counter.add(labels, value);
    if (this.mirror) this.mirror.add(key, value, labels);
    else this.keep(['add', key, value, labels]);
  }

  private observe<L extends string>(histogram: Histogram<L>, key: HistogramKey, labels: Labels<L>, value: number): void {
    histogram.observe(labels, value);
    if (this.mirror) this.mirror.record(key, value, labels);
    else this.keep(['record', key, value, labels]);
  }

  private keep(update: MirrorUpdate): void {
    if (!this.pending) return;
    if (this.pending.length >= MAX_PENDING_MIRROR_UPDATES) this.pending.shift();
    this.pending.push(update);
  }
}
