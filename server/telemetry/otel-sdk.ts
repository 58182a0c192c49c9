import type { Counter as OtelCounter, Histogram as OtelHistogram } from '@opentelemetry/api';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { AlwaysOnSampler, BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { AGENT_NAME } from './conventions';
import { reportExportFailures } from './export-failures';
import { HISTOGRAM_BUCKETS, METRICS, type CounterKey, type GaugeKey, type HistogramKey, type RunMetrics } from './run-metrics';
import { RunSpans, StagedIds, type RunSpansOptions } from './run-spans';
import type { TelemetrySettings } from '../config/telemetry';

/**
 * The OpenTelemetry SDK, set up from planscope's configuration. Only ever
 * loaded by a dynamic import when an OTLP endpoint is configured
 * (server/telemetry/index.ts): without one, none of this is in memory.
 *
 * Nothing is registered globally: planscope's spans are built from its
 * events with explicit parents, so it needs no context manager, and a
 * global provider would also start collecting the spans of whatever else
 * in the process uses the OpenTelemetry API (Next.js does).
 */

export interface OtelExport {
  /** Builds each traced run's spans from its events; null when only metrics are exported. */
  spans: RunSpans | null;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/** Every run is one whole trace: sampling a run's spans apart would leave holes in it. */
const sampler = new AlwaysOnSampler();

export function startOtel(settings: TelemetrySettings, metrics: RunMetrics, spanOptions: RunSpansOptions): OtelExport {
  const resource = defaultResource().merge(resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': settings.serviceName }));
  const stops: (() => Promise<void>)[] = [];
  let spans: RunSpans | null = null;

  if (settings.traces) {
    const { url, protocol } = settings.traces;
    const exporter = reportExportFailures(protocol === 'http/json' ? new JsonTraceExporter({ url }) : new ProtoTraceExporter({ url }), 'trace', url);
    const ids = new StagedIds();
    const provider = new NodeTracerProvider({ resource, sampler, idGenerator: ids, spanProcessors: [new BatchSpanProcessor(exporter)] });
    spans = new RunSpans(provider.getTracer(AGENT_NAME), ids, spanOptions);
    stops.push(() => provider.shutdown());
  }

  if (settings.metrics) {
    const { url, protocol, intervalMs } = settings.metrics;
    const exporter = reportExportFailures(protocol === 'http/json' ? new JsonMetricExporter({ url }) : new ProtoMetricExporter({ url }), 'metric', url);
    const provider = new MeterProvider({ resource, readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: intervalMs })] });
    mirrorMetrics(provider, metrics);
    stops.push(() => provider.shutdown());
  }

  return {
    spans,
    async shutdown() {
      await spans?.settled();
      await Promise.allSettled(stops.map((stop) => stop()));
    },
  };
}

/** The same instruments as `GET /api/metrics`, under their OpenTelemetry names. */
function mirrorMetrics(provider: MeterProvider, metrics: RunMetrics): void {
  const meter = provider.getMeter(AGENT_NAME);
  const counterKeys: CounterKey[] = ['runs', 'tokens', 'rejections', 'stepFailures', 'cacheReuse'];
  const counters = Object.fromEntries(
    counterKeys.map((key) => [key, meter.createCounter(METRICS[key].otel, { unit: METRICS[key].unit, description: METRICS[key].help })]),
  ) as Record<CounterKey, OtelCounter>;
  const histogramKeys: HistogramKey[] = ['runDuration', 'llmCallDuration'];
  const histograms = Object.fromEntries(
    histogramKeys.map((key) => [
      key,
      meter.createHistogram(METRICS[key].otel, {
        unit: METRICS[key].unit,
        description: METRICS[key].help,
        advice: { explicitBucketBoundaries: [...HISTOGRAM_BUCKETS[key]] },
      }),
    ]),
  ) as Record<HistogramKey, OtelHistogram>;
  const gaugeKeys: GaugeKey[] = ['queued', 'running', 'awaitingApproval', 'sseClients'];
  for (const key of gaugeKeys) {
    meter
      .createObservableGauge(METRICS[key].otel, { unit: METRICS[key].unit, description: METRICS[key].help })
      .addCallback((result) => result.observe(metrics.gauge(key)));
  }
  metrics.mirrorTo({
    add: (key, value, labels) => counters[key].add(value, labels),
    record: (key, value, labels) => histograms[key].record(value, labels),
  });
}
