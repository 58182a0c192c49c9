import { z } from 'zod';
import { PlanscopeError } from '../errors';

/**
 * The standard OpenTelemetry environment, as far as planscope acts on it.
 * The variables keep their specification's meaning, so the same environment
 * that points any other OpenTelemetry SDK at a backend points planscope
 * there too. The exporters read the rest of their variables themselves
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `..._TIMEOUT`, `..._COMPRESSION`), and the
 * SDK its span limits (`OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`).
 */
const text = z.string().trim().min(1).optional();
const protocol = z.string().trim().toLowerCase().optional();
const flag = z.string().trim().toLowerCase().optional();

export const OtelEnv = z.object({
  OTEL_SDK_DISABLED: flag,
  OTEL_EXPORTER_OTLP_ENDPOINT: text,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: text,
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: text,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: protocol,
  OTEL_TRACES_EXPORTER: protocol,
  OTEL_METRICS_EXPORTER: protocol,
  OTEL_SERVICE_NAME: text,
  OTEL_RESOURCE_ATTRIBUTES: text,
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(1000).max(24 * 3600 * 1000).optional(),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: flag,
});
export type OtelEnv = z.infer<typeof OtelEnv>;

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface OtlpTarget {
  /** The signal's full URL (`.../v1/traces`, `.../v1/metrics`). */
  url: string;
  protocol: OtlpProtocol;
}

export interface TelemetrySettings {
  /** Where runs are exported as traces; null when no endpoint is set (nothing is loaded). */
  traces: OtlpTarget | null;
  /** Where the metrics are pushed besides `GET /api/metrics`; null when no endpoint is set. */
  metrics: (OtlpTarget & { intervalMs: number }) | null;
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, decoded. */
  resourceAttributes: Record<string, string>;
  /** Prompts, replies, tool arguments and results on spans: off unless asked for. */
  captureContent: boolean;
  /** `PLANSCOPE_TRACE_URL`: a trace's address in the team's trace UI, `{traceId}` standing for the id. */
  traceUrl: string | null;
}

export class TelemetrySettingsError extends PlanscopeError {
  override name = 'TelemetrySettingsError';
}

const DEFAULT_SERVICE_NAME = 'planscope';
/** The specification's default export interval for metrics. */
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
export const TRACE_ID_PLACEHOLDER = '{traceId}';

export function telemetrySettings(env: OtelEnv & { PLANSCOPE_TRACE_URL?: string }): TelemetrySettings {
  const disabled = env.OTEL_SDK_DISABLED === 'true';
  const tracesOn = !disabled && exporterWanted('OTEL_TRACES_EXPORTER', env.OTEL_TRACES_EXPORTER);
  const metricsOn = !disabled && exporterWanted('OTEL_METRICS_EXPORTER', env.OTEL_METRICS_EXPORTER);
  const tracesUrl = signalUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, env.OTEL_EXPORTER_OTLP_ENDPOINT, 'traces');
  const metricsUrl = signalUrl(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, env.OTEL_EXPORTER_OTLP_ENDPOINT, 'metrics');
  const resourceAttributes = parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  return {
    traces:
      tracesOn && tracesUrl
        ? { url: tracesUrl, protocol: protocolOf('TRACES', env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL) }
        : null,
    metrics:
      metricsOn && metricsUrl
        ? {
            url: metricsUrl,
            protocol: protocolOf('METRICS', env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL),
            intervalMs: env.OTEL_METRIC_EXPORT_INTERVAL ?? DEFAULT_METRIC_INTERVAL_MS,
          }
        : null,
    // The specification's precedence: OTEL_SERVICE_NAME, then service.name among the resource attributes.
    serviceName: env.OTEL_SERVICE_NAME ?? resourceAttributes['service.name'] ?? DEFAULT_SERVICE_NAME,
    resourceAttributes,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true',
    traceUrl: parseTraceUrl(env.PLANSCOPE_TRACE_URL),
  };
}

function exporterWanted(name: string, value: string | undefined): boolean {
  if (value === undefined || value === 'otlp') return true;
  if (value === 'none') return false;
  throw new TelemetrySettingsError(`${name}: planscope exports "otlp" or "none", not "${value}"`);
}

/**
 * As the specification says: a signal's own endpoint is used as given; the
 * shared one gets `v1/<signal>` appended. Only http and https: planscope
 * speaks OTLP over HTTP.
 */
function signalUrl(own: string | undefined, shared: string | undefined, signal: 'traces' | 'metrics'): string | null {
  const raw = own ?? (shared === undefined ? undefined : `${shared.replace(/\/+$/, '')}/v1/${signal}`);
  if (raw === undefined) return null;
  const name = own !== undefined ? `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT` : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TelemetrySettingsError(`${name} is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TelemetrySettingsError(`${name} must be an http or https URL (planscope exports OTLP over HTTP): ${raw}`);
  }
  return raw;
}

function protocolOf(signal: 'TRACES' | 'METRICS', value: string | undefined): OtlpProtocol {
  // The specification's default; what Jaeger, Phoenix and Langfuse all accept.
  if (value === undefined || value === 'http/protobuf') return 'http/protobuf';
  if (value === 'http/json') return 'http/json';
  throw new TelemetrySettingsError(
    `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL (or OTEL_EXPORTER_OTLP_PROTOCOL): planscope speaks "http/protobuf" or "http/json", not "${value}"`,
  );
}

/** `key1=value1,key2=value2`, values percent-encoded (W3C Baggage octets), as the specification defines it. */
function parseResourceAttributes(raw: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (raw === undefined) return attributes;
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq).trim();
    if (eq < 0 || key === '') throw new TelemetrySettingsError(`OTEL_RESOURCE_ATTRIBUTES: "${pair.trim()}" is not key=value`);
    const value = pair.slice(eq + 1).trim();
    try {
      attributes[key] = decodeURIComponent(value);
    } catch {
      throw new TelemetrySettingsError(`OTEL_RESOURCE_ATTRIBUTES: the value of ${key} is not percent-encoded correctly`);
    }
  }
  return attributes;
}

function parseTraceUrl(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!raw.includes(TRACE_ID_PLACEHOLDER)) {
    throw new TelemetrySettingsError(`PLANSCOPE_TRACE_URL must contain ${TRACE_ID_PLACEHOLDER} where the trace id goes: ${raw}`);
  }
  let url: URL;
  try {
    url = new URL(raw.replaceAll(TRACE_ID_PLACEHOLDER, '0'));
  } catch {
    throw new TelemetrySettingsError(`PLANSCOPE_TRACE_URL is not a URL: ${raw}`);
  }
  // The link is put on the run page: a javascript: address would run in the dashboard's origin.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TelemetrySettingsError(`PLANSCOPE_TRACE_URL must be an http or https URL: ${raw}`);
  }
  return raw;
}

/** The run's trace in the team's trace UI, when one is configured. */
export function traceLink(template: string | null, traceId: string | null): string | null {
  if (template === null || traceId === null) return null;
  return template.replaceAll(TRACE_ID_PLACEHOLDER, traceId);
}
