import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config';
import { GenAi, GenAiOperation, General, Mcp } from '../../../server/telemetry/conventions';
import { traceLink } from '../../../server/config/telemetry';
import { formatTraceparent, parseTraceparent, spanIdFor } from '../../../server/telemetry/trace-context';

const telemetryOf = (env: Record<string, string>) => loadConfig(env, process.cwd()).telemetry;

describe('the OpenTelemetry environment', () => {
  it('loads nothing when no endpoint is set', () => {
    const t = telemetryOf({ OTEL_SERVICE_NAME: 'x', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    expect(t.traces).toBeNull();
    expect(t.metrics).toBeNull();
  });

  it('appends the signal path to the shared endpoint and takes a signal endpoint as given', () => {
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).traces).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    const t = telemetryOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://cloud.langfuse.com/api/public/otel/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
    });
    expect(t.traces).toEqual({ url: 'https://cloud.langfuse.com/api/public/otel/v1/traces', protocol: 'http/json' });
    expect(t.metrics).toEqual({ url: 'http://collector:4318/v1/metrics', protocol: 'http/json', intervalMs: 15000 });
  });

  it('exports only traces when only a traces endpoint is set, and honours none and OTEL_SDK_DISABLED', () => {
    const tracesOnly = telemetryOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/v1/traces' });
    expect(tracesOnly.traces).not.toBeNull();
    expect(tracesOnly.metrics).toBeNull();
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' }).metrics).toBeNull();
    const disabled = telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' });
    expect([disabled.traces, disabled.metrics]).toEqual([null, null]);
  });

  it('reads the service name and resource attributes as the specification says', () => {
    const t = telemetryOf({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod%20eu, team = agents' });
    expect(t.serviceName).toBe('from-attrs');
    expect(t.resourceAttributes).toEqual({ 'service.name': 'from-attrs', 'deployment.environment': 'prod eu', team: 'agents' });
    expect(telemetryOf({ OTEL_SERVICE_NAME: 'mine', OTEL_RESOURCE_ATTRIBUTES: 'service.name=other' }).serviceName).toBe('mine');
    expect(telemetryOf({}).serviceName).toBe('planscope');
  });

  it('captures content only when asked', () => {
    expect(telemetryOf({}).captureContent).toBe(false);
    expect(telemetryOf({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE' }).captureContent).toBe(true);
    expect(telemetryOf({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' }).captureContent).toBe(false);
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /speaks "http\/protobuf" or "http\/json", not "grpc"/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /must be an http or https URL/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a URL/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /exports "otlp" or "none", not "zipkin"/],
    [{ OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, /is not key=value/],
    [{ PLANSCOPE_TRACE_URL: 'http://jaeger:16686/trace/' }, /must contain \{traceId\}/],
    [{ PLANSCOPE_TRACE_URL: 'javascript:alert({traceId})' }, /must be an http or https URL/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env, process.cwd())).toThrow(ConfigError);
    expect(() => loadConfig(env, process.cwd())).toThrow(message);
  });

  it('links a run to its trace when a trace UI is configured', () => {
    const template = telemetryOf({ PLANSCOPE_TRACE_URL: 'http://localhost:16686/trace/{traceId}' }).traceUrl;
    expect(traceLink(template, 'abc')).toBe('http://localhost:16686/trace/abc');
    expect(traceLink(template, null)).toBeNull();
    expect(traceLink(null, 'abc')).toBeNull();
  });
});

describe('trace context', () => {
  it('parses and formats W3C traceparent, refusing malformed and all-zero ids', () => {
    const value = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(formatTraceparent(parseTraceparent(value)!)).toBe(value);
    expect(parseTraceparent('00-00000000000000000000000000000000-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01')).toBeNull();
    expect(parseTraceparent('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent(undefined)).toBeNull();
  });

  it('derives the same span id for the same event of the same run, and different ones otherwise', () => {
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(spanIdFor(trace, 'call:planner#1')).toBe(spanIdFor(trace, 'call:planner#1'));
    expect(spanIdFor(trace, 'call:planner#1')).not.toBe(spanIdFor(trace, 'call:planner#2'));
    expect(spanIdFor(trace, 'call:planner#1')).not.toBe(spanIdFor('5bf92f3577b34da6a3ce929d0e0e4736', 'call:planner#1'));
    expect(spanIdFor(trace, 'step:1:0')).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('the semantic-convention names planscope emits', () => {
  it('match @opentelemetry/semantic-conventions (a rename upstream fails here, and is followed in conventions.ts)', () => {
    expect(GenAi).toEqual({
      operationName: semconv.ATTR_GEN_AI_OPERATION_NAME,
      providerName: semconv.ATTR_GEN_AI_PROVIDER_NAME,
      system: semconv.ATTR_GEN_AI_SYSTEM,
      agentName: semconv.ATTR_GEN_AI_AGENT_NAME,
      agentId: semconv.ATTR_GEN_AI_AGENT_ID,
      conversationId: semconv.ATTR_GEN_AI_CONVERSATION_ID,
      requestModel: semconv.ATTR_GEN_AI_REQUEST_MODEL,
      requestTemperature: semconv.ATTR_GEN_AI_REQUEST_TEMPERATURE,
      requestMaxTokens: semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
      outputType: semconv.ATTR_GEN_AI_OUTPUT_TYPE,
      responseFinishReasons: semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
      usageInputTokens: semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      usageOutputTokens: semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      inputMessages: semconv.ATTR_GEN_AI_INPUT_MESSAGES,
      outputMessages: semconv.ATTR_GEN_AI_OUTPUT_MESSAGES,
      toolName: semconv.ATTR_GEN_AI_TOOL_NAME,
      toolType: semconv.ATTR_GEN_AI_TOOL_TYPE,
      toolCallId: semconv.ATTR_GEN_AI_TOOL_CALL_ID,
      toolCallArguments: semconv.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
      toolCallResult: semconv.ATTR_GEN_AI_TOOL_CALL_RESULT,
      evaluationName: semconv.ATTR_GEN_AI_EVALUATION_NAME,
      evaluationScoreValue: semconv.ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
      evaluationScoreLabel: semconv.ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
    });
    expect(GenAiOperation).toEqual({
      invokeAgent: semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    });
    expect(Mcp).toEqual({ methodName: semconv.ATTR_MCP_METHOD_NAME, toolsCall: semconv.MCP_METHOD_NAME_VALUE_TOOLS_CALL });
    expect(General).toEqual({
      errorType: semconv.ATTR_ERROR_TYPE,
      serverAddress: semconv.ATTR_SERVER_ADDRESS,
      serverPort: semconv.ATTR_SERVER_PORT,
      networkTransport: semconv.ATTR_NETWORK_TRANSPORT,
      transportPipe: semconv.NETWORK_TRANSPORT_VALUE_PIPE,
    });
  });
});
