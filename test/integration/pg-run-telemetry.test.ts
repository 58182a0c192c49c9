import type { IExportMetricsServiceRequest } from '@opentelemetry/otlp-transformer/build/src/metrics/internal-types';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { openRuntime } from '../../server/runtime';
import { parseTraceparent } from '../../server/telemetry/trace-context';
import { startFakeOllama } from '../support/fake-ollama';
import { APP_ROOT, ENDPOINT_TASK, endpointAnswer, plan } from '../support/harness';
import { attributesOf, plain, startOtlpReceiver } from '../support/otlp-receiver';
import { databaseForTest } from '../support/postgres';
import { queueTestEnv, startWorkerProcess, type WorkerProcess } from '../support/worker-process';

/**
 * Metrics and traces follow the run, not the process, on the real
 * PostgreSQL server: a process that takes no runs (a dashboard with
 * PLANSCOPE_WORKER=off) counts a run it sent to the queue as queued until a
 * worker process takes it, and forgets it then; the worker adopts it. So
 * `planscope_runs_*` summed over the processes counts each run once, and
 * each run is one trace, its run span made by the worker under the
 * `traceparent` its creator recorded.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The last value each process (by its `planscope.test.process` resource attribute) exported of a counter, by label. */
function lastCounts(requests: readonly IExportMetricsServiceRequest[], metric: string): Map<string, Map<string, number>> {
  const byProcess = new Map<string, Map<string, number>>();
  for (const request of requests) {
    for (const rm of request.resourceMetrics ?? []) {
      const process = String(attributesOf({ attributes: rm.resource?.attributes ?? [] })['planscope.test.process']);
      for (const sm of rm.scopeMetrics) {
        for (const m of sm.metrics) {
          if (m.name !== metric) continue;
          const points = m.sum?.dataPoints ?? m.gauge?.dataPoints ?? [];
          const counts = new Map<string, number>();
          for (const p of points) counts.set(JSON.stringify(attributesOf({ attributes: p.attributes })), Number(p.asInt ?? p.asDouble ?? 0));
          // Cumulative: the latest reading has the process's whole count.
          byProcess.set(process, counts);
        }
      }
    }
  }
  return byProcess;
}

describe('a dashboard that takes no runs, and two worker processes', () => {
  it('count each run once summed over the processes, and trace each run as one trace with every span', async () => {
    const database = await databaseForTest(cleanups);
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const fake = await startFakeOllama({ planner: [{ content: plan('src/config.ts'), delayMs: 1000 }], synthesizer: [{ content: endpointAnswer() }] });
    cleanups.push(() => fake.close());
    const { env } = queueTestEnv(cleanups, fake.url, {
      PLANSCOPE_REVIEW: 'false',
      // One run at a time each, each run longer than a pickup: the runs started at once go to both workers.
      PLANSCOPE_WORKER_CONCURRENCY: '1',
      PLANSCOPE_HOST_CONCURRENCY: '4',
      PLANSCOPE_WORKER_HEARTBEAT_MS: '250',
      PLANSCOPE_WORKER_LOST_AFTER_MS: '1500',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    });
    const dashboard = await openRuntime(
      loadConfig({ ...env, PLANSCOPE_WORKER: 'off', OTEL_RESOURCE_ATTRIBUTES: 'planscope.test.process=dashboard', PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' }, APP_ROOT),
    );
    cleanups.push(() => dashboard.close());

    // A run sent while no worker is live waits in the queue: the dashboard counts it queued meanwhile.
    const first = await dashboard.registry.start({ task: ENDPOINT_TASK });
    expect(dashboard.telemetry.metrics.gauge('queued')).toBe(1);
    const workers: WorkerProcess[] = [];
    for (const name of ['worker-a', 'worker-b']) {
      const worker = await startWorkerProcess(database, { ...env, OTEL_RESOURCE_ATTRIBUTES: `planscope.test.process=${name}` });
      cleanups.push(() => worker.kill());
      workers.push(worker);
    }
    const ids = [first.id, ...(await Promise.all([1, 2, 3].map(async () => (await dashboard.registry.start({ task: ENDPOINT_TASK })).id)))];
    const views = await Promise.all(ids.map((id) => dashboard.registry.waitFor(id)));
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    // Both workers ran runs: what is summed comes from more than one process.
    const owners = new Set(await Promise.all(ids.map(async (id) => (await dashboard.store.getRun(id))?.ownerStart)));
    expect(owners.size).toBe(2);

    // Every run was taken by a worker: none is left in the dashboard's gauges, and it counted none as ended.
    const { metrics } = dashboard.telemetry;
    expect([metrics.gauge('queued'), metrics.gauge('running'), metrics.gauge('awaitingApproval')]).toEqual([0, 0, 0]);
    expect(metrics.render()).not.toMatch(/^planscope_runs_total\{/m);

    // A worker told to stop exports what it holds before it exits.
    for (const worker of workers) await worker.stop();
    const ended = lastCounts(receiver.metrics(), 'planscope.runs');
    const completed = JSON.stringify({ status: 'completed', model: 'qwen3:8b' });
    const perWorker = ['worker-a', 'worker-b'].map((w) => ended.get(w)?.get(completed) ?? 0);
    expect(perWorker.reduce((a, b) => a + b, 0)).toBe(4);
    expect(perWorker.every((n) => n > 0)).toBe(true);
    for (const w of ['worker-a', 'worker-b']) expect(lastCounts(receiver.metrics(), 'planscope.runs.running').get(w)?.get('{}') ?? 0).toBe(0);

    // Each run is one trace: the run span (made by the worker) under the id its creator recorded, and its queue wait and calls in it.
    const spans = receiver.spans();
    for (const id of ids) {
      const events = await dashboard.store.events(id);
      const created = events[0];
      if (created?.type !== 'run_created') throw new Error('a run without run_created');
      const parent = parseTraceparent(created.traceparent)!;
      const ofRun = spans.filter((s) => s.traceId === parent.traceId);
      const roots = ofRun.filter((s) => s.name === 'invoke_agent planscope');
      expect(roots).toHaveLength(1);
      expect(roots[0]!.spanId).toBe(parent.spanId);
      expect(attributesOf(roots[0]!)['planscope.run.id']).toBe(id);
      expect(plain(roots[0]!.attributes.find((a) => a.key === 'planscope.status')?.value)).toBe('completed');
      expect(ofRun.filter((s) => s.name === 'planscope.queue')).toHaveLength(1);
      expect(ofRun.filter((s) => s.name === 'chat qwen3:8b')).toHaveLength(2);
      // Every span of the run hangs from one of the run's own: nothing is left pointing outside its trace.
      const known = new Set(ofRun.map((s) => s.spanId));
      for (const span of ofRun) if (span !== roots[0]) expect(known.has(span.parentSpanId ?? '')).toBe(true);
    }
  });
});
