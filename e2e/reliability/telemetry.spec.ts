import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { parseTraceparent } from '../../server/telemetry/trace-context';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/support/otlp-receiver';
import { startProductionServer, type ServerProcess } from '../../test/support/server-process';
import { expect, test } from '../fixtures';
import { Api, TASK } from './helpers';

/**
 * The production dashboard with OpenTelemetry configured: the run page links
 * to the run's trace, `GET /api/metrics` counts the run, and stopping the
 * server exports the run's spans to an OTLP receiver. The server's own
 * process loads the SDK (a dynamic import in the Next.js bundle).
 */
test.describe('a server exporting OpenTelemetry', () => {
  test.describe.configure({ mode: 'serial' });
  let server: ServerProcess;
  let receiver: OtlpReceiver;

  test.beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startProductionServer({
      env: {
        PLANSCOPE_MODEL: 'offline',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        PLANSCOPE_TRACE_URL: 'http://traces.example/trace/{traceId}?from=planscope',
      },
    });
  });
  test.afterAll(async () => {
    await server?.cleanup();
    await receiver?.close();
  });

  test('links the run to its trace, counts it in /api/metrics, and exports it', async ({ page }) => {
    const api = new Api(server.url);
    const id = await api.startRun({ task: TASK });
    const detail = await api.waitForEnd(id);
    expect(detail.status).toBe('completed');
    const created = detail.events.find((e) => e.type === 'run_created');
    const trace = parseTraceparent(created?.type === 'run_created' ? created.traceparent : undefined);
    expect(trace).not.toBeNull();

    await page.goto(`${server.url}/runs/${id}`);
    await expect(page.getByTestId('trace-link')).toHaveAttribute('href', `http://traces.example/trace/${trace!.traceId}?from=planscope`);

    const metrics = await api.fetch('/api/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const runs = parsePrometheusTextFormat(await metrics.text()).find((f) => f.name === 'planscope_runs_total');
    expect(runs?.metrics).toEqual([{ labels: { status: 'completed', model: 'offline' }, value: '1' }]);

    // A graceful stop exports what the batch still holds.
    await server.stop('SIGTERM');
    const root = receiver.spans().find((s) => s.name === 'invoke_agent planscope');
    expect(root?.traceId).toBe(trace!.traceId);
    expect(root?.spanId).toBe(trace!.spanId);
    expect(receiver.posts.every((p) => p.path === '/v1/traces')).toBe(true);
  });
});
