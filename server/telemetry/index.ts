import type { EventOf, RunEvent, RunStatus } from '../../lib/events';
import type { RunStore } from '../store/run-store';
import { guarded } from './guarded';
import type { OtelExport } from './otel-sdk';
import { RunMetrics } from './run-metrics';
import type { RunSpans } from './run-spans';
import type { TelemetrySettings } from '../config/telemetry';

/**
 * Runs as metrics (always, for `GET /api/metrics`) and, when an OTLP
 * endpoint is configured, as OpenTelemetry traces and metrics. Both follow
 * every run's events on the bus; the engine knows nothing of them.
 *
 * The OpenTelemetry SDK is loaded by a dynamic import, and only when an
 * endpoint is configured: the CLI and the dashboard start as fast without
 * it as they did before it existed. Events published while it loads are
 * kept and handed to it once it is there.
 */
export interface Telemetry {
  metrics: RunMetrics;
  /** Settles once the SDK is loaded, or at once when none is configured. */
  ready: Promise<void>;
  /** Stops following runs and exports what is still buffered (bounded in time). */
  close(): Promise<void>;
}

/** An event, an adoption or a run let go, in the order they came while the SDK loads. */
type Pending = [string, RunEvent | AdoptedRun | null];

/** Events kept while the SDK loads; a run's trace missing its start is better than unbounded memory. */
const MAX_PENDING_EVENTS = 50_000;
/** A collector that does not answer must not hold a CLI run's exit or a server's shutdown. */
const EXPORT_ON_CLOSE_MS = 5000;

/** What telemetry reads of the configuration: its own settings (the spans take each call's options from its event). */
export interface TelemetryConfig {
  telemetry: TelemetrySettings;
  openaiServers: readonly { name: string }[];
}

/** A run this process takes from another, as its log has it (server/runs/bus.ts `AdoptedRun`). */
export interface AdoptedRun {
  created: EventOf<'run_created'>;
  status: RunStatus;
}

/** Where every run's events are published (server/runs/bus.ts), and which runs this process records. */
export interface RunFeed {
  subscribeAll(listener: (runId: string, event: RunEvent) => void): () => void;
  /** `adopted`: this process records the run from now on; null: no more of it (handed on). */
  subscribeCustody(listener: (runId: string, adopted: AdoptedRun | null) => void): () => void;
}

/** The events by which a process takes a run another handed over (or ends it): the one that handed it counts it no more. */
const TAKEN_BY = new Set<RunEvent['type']>(['run_started', 'run_resumed', 'approval_decided', 'run_finished']);

/** Where the events of one run are heard, whichever process commits them (server/runs/feed.ts). */
export interface OneRunFeed {
  subscribe(runId: string, listener: (event: RunEvent) => void): () => void;
}

export function startTelemetry(config: TelemetryConfig, bus: RunFeed, store: RunStore, feed: OneRunFeed): Telemetry {
  const settings = config.telemetry;
  const metrics = new RunMetrics();
  const exported = settings.traces !== null || settings.metrics !== null;
  if (settings.metrics) metrics.expectMirror();

  let spans: RunSpans | null = null;
  let pending: Pending[] | null = exported ? [] : null;
  const unsubscribe = bus.subscribeAll((runId, event) => {
    guarded('metrics', () => metrics.handle(runId, event));
    if (spans) guarded('traces', () => spans?.handle(runId, event));
    else if (pending && pending.length < MAX_PENDING_EVENTS) pending.push([runId, event]);
  });
  // A run is counted and traced by the process recording it: the worker taking it from the queue adopts it. The
  // process that handed it over counts it as waiting until a process takes it, which the feed tells it.
  const handedOver = new Map<string, () => void>();
  const taken = (runId: string) => {
    handedOver.get(runId)?.();
    handedOver.delete(runId);
  };
  const unsubscribeCustody = bus.subscribeCustody((runId, adopted) => {
    if (adopted) taken(runId);
    guarded('metrics', () => {
      if (adopted) metrics.adopt(runId, adopted);
      else if (!handedOver.has(runId) && metrics.handOver(runId)) {
        const stop = feed.subscribe(runId, (event) => {
          if (!TAKEN_BY.has(event.type)) return;
          taken(runId);
          metrics.forget(runId);
        });
        handedOver.set(runId, stop);
      }
    });
    if (spans) guarded('traces', () => (adopted ? spans?.adopt(runId, adopted) : spans?.forget(runId)));
    else if (pending && pending.length < MAX_PENDING_EVENTS) pending.push([runId, adopted]);
  });

  const otel: Promise<OtelExport | null> = exported
    ? import('./otel-sdk')
        .then(({ startOtel }) => {
          const started = startOtel(settings, metrics, {
            captureContent: settings.captureContent,
            artifact: async (runId, name) => (await store.getArtifact(runId, name))?.content ?? null,
            openaiServers: config.openaiServers.map((s) => s.name),
          });
          const caughtUp = started.spans;
          for (const [runId, item] of pending ?? []) {
            guarded('traces', () => (item === null ? caughtUp?.forget(runId) : 'type' in item ? caughtUp?.handle(runId, item) : caughtUp?.adopt(runId, item)));
          }
          spans = caughtUp;
          pending = null;
          return started;
        })
        .catch((error: unknown) => {
          pending = null;
          metrics.mirrorTo({ add: () => {}, record: () => {} });
          process.stderr.write(`planscope: OpenTelemetry export is off: the SDK could not start: ${describe(error)}\n`);
          return null;
        })
    : Promise.resolve(null);

  return {
    metrics,
    ready: otel.then(() => undefined),
    async close() {
      unsubscribe();
      unsubscribeCustody();
      for (const runId of [...handedOver.keys()]) taken(runId);
      const started = await otel;
      if (!started) return;
      await Promise.race([started.shutdown(), new Promise((resolve) => setTimeout(resolve, EXPORT_ON_CLOSE_MS).unref())]);
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
