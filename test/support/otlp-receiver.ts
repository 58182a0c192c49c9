/**
 * A real OTLP/HTTP receiver, in-process: it accepts what an OpenTelemetry
 * exporter posts to /v1/traces and /v1/metrics and decodes OTLP/JSON bodies
 * into the OpenTelemetry packages' own request types
 * (`@opentelemetry/otlp-transformer`). Protobuf bodies are kept as bytes.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IAnyValue, IKeyValue } from '@opentelemetry/otlp-transformer/build/src/common/internal-types';
import type { IExportMetricsServiceRequest } from '@opentelemetry/otlp-transformer/build/src/metrics/internal-types';
import type { IEvent, IExportTraceServiceRequest, ISpan } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types';

export interface OtlpPost {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  posts: OtlpPost[];
  /** Every span received over OTLP/JSON, in arrival order. */
  spans(): ISpan[];
  /** Every metrics request received over OTLP/JSON. */
  metrics(): IExportMetricsServiceRequest[];
  /** From now on every post is refused with this HTTP status (and still kept in `posts`); 200 accepts again. */
  answerWith(status: number): void;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const posts: OtlpPost[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      posts.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body });
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(status, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const jsonBodies = <T>(path: string): T[] =>
    posts.filter((p) => p.path === path && p.contentType.includes('json')).map((p) => JSON.parse(p.body.toString('utf8')) as T);
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    spans: () =>
      jsonBodies<IExportTraceServiceRequest>('/v1/traces').flatMap((request) =>
        (request.resourceSpans ?? []).flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans ?? [])),
      ),
    metrics: () => jsonBodies<IExportMetricsServiceRequest>('/v1/metrics'),
    answerWith: (next) => {
      status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** An OTLP AnyValue as a plain value. */
export function plain(value: IAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined && value.stringValue !== null) return value.stringValue;
  if (value.boolValue !== undefined && value.boolValue !== null) return value.boolValue;
  if (value.intValue !== undefined && value.intValue !== null) return Number(value.intValue);
  if (value.doubleValue !== undefined && value.doubleValue !== null) return value.doubleValue;
  if (value.arrayValue) return value.arrayValue.values.map(plain);
  return undefined;
}

export function attributesOf(item: ISpan | IEvent | { attributes: IKeyValue[] }): Record<string, unknown> {
  return Object.fromEntries(item.attributes.map((kv) => [kv.key, plain(kv.value)]));
}
