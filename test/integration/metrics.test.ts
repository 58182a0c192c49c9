import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { runEventStream } from '../../server/http/run-stream';
import { endpointAnswer, ENDPOINT_TASK, plan, startHarness, type Harness } from '../support/harness';

const TASK = ENDPOINT_TASK;
const GOOD_ANSWER = endpointAnswer();

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** What `GET /api/metrics` serves, read back by an independent Prometheus text-format parser. */
function scrape(harness: Harness): Map<string, PrometheusFamily> {
  return new Map(parsePrometheusTextFormat(harness.runtime.telemetry.metrics.render()).map((family) => [family.name, family]));
}

function sample(families: Map<string, PrometheusFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  if (!family) throw new Error(`no metric ${name}`);
  const found = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (!found) return 0;
  return Number(found.value ?? found.count);
}

describe('GET /api/metrics: Prometheus text format, counted from the runs made', () => {
  it('counts runs by status and model, durations, tokens, rejections, step failures and cache reuse', async () => {
    h = await startHarness(
      {
        planner: [
          // Run 1: rejected (.env.local), then a failing step (not_found), then a reuse of the read that worked.
          { content: plan('src/config.ts', '.env.local') },
          { content: plan('src/config.ts', 'src/missing.ts') },
          { content: plan('src/config.ts', 'src/llm.ts') },
          // Run 2: two unparsable plans: it fails max_rounds_exceeded.
          { content: 'not json' },
          { content: '{"steps": []' },
        ],
        synthesizer: [{ content: GOOD_ANSWER }],
      },
      { PLANSCOPE_MAX_ROUNDS: '3' },
    );
    const empty = scrape(h);
    expect(sample(empty, 'planscope_runs_total', { status: 'completed' })).toBe(0);
    expect(empty.get('planscope_runs_total')?.type).toBe('COUNTER');

    const first = await h.run(TASK);
    expect(first.result.status).toBe('completed');
    const second = await h.run(TASK, { maxRounds: 2 });
    expect(second.result.error?.code).toBe('max_rounds_exceeded');
    const third = await h.run(TASK, { model: 'offline' });
    expect(third.result.status).toBe('completed');

    const m = scrape(h);
    expect(sample(m, 'planscope_runs_total', { status: 'completed', model: 'qwen3:8b' })).toBe(1);
    expect(sample(m, 'planscope_runs_total', { status: 'failed', model: 'qwen3:8b' })).toBe(1);
    expect(sample(m, 'planscope_runs_total', { status: 'completed', model: 'offline' })).toBe(1);

    // The parser keeps a histogram's labels only for its buckets' `le` (its limitation, not the format's):
    // the labelled series are checked through the counters above and in the single-series test below.
    expect(m.get('planscope_run_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(m.get('planscope_llm_call_duration_seconds')?.type).toBe('HISTOGRAM');

    // Tokens by role and model: what the model reported, summed.
    const qwenCalls = [...first.events, ...second.events].filter((e) => e.type === 'llm_call_finished');
    const inputTokens = qwenCalls.reduce((n, e) => n + (e.type === 'llm_call_finished' ? (e.promptTokens ?? 0) : 0), 0);
    const tokenSamples = m.get('planscope_llm_tokens_total')!.metrics.filter((s) => s.labels?.model === 'qwen3:8b' && s.labels?.type === 'input');
    expect(tokenSamples.reduce((n, s) => n + Number(s.value), 0)).toBe(inputTokens);

    expect(sample(m, 'planscope_rejections_total', { code: 'path_denied' })).toBe(1);
    expect(sample(m, 'planscope_rejections_total', { code: 'schema_invalid' })).toBe(2);
    expect(sample(m, 'planscope_step_failures_total', { code: 'not_found' })).toBe(1);
    expect(sample(m, 'planscope_cache_reuse_total')).toBe(1);
    expect(sample(m, 'planscope_runs_queued')).toBe(0);
    expect(sample(m, 'planscope_runs_running')).toBe(0);
  });

  it('puts each run and each model call in its duration histogram', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: GOOD_ANSWER }] }, { PLANSCOPE_REVIEW: 'false' });
    const { view } = await h.run(TASK);
    const m = scrape(h);
    const run = m.get('planscope_run_duration_seconds')!;
    expect(run.metrics).toHaveLength(1);
    const buckets = run.metrics[0]!.buckets!;
    expect(new Set(Object.keys(buckets))).toEqual(new Set(['0.5', '1', '2', '5', '10', '30', '60', '120', '300', '600', '1800', '+Inf']));
    expect(buckets['+Inf']).toBe('1');
    const seconds = (view.finishedAt! - view.createdAt!) / 1000;
    for (const [le, count] of Object.entries(buckets)) expect(count, le).toBe(le === '+Inf' || seconds <= Number(le) ? '1' : '0');
    // Two calls (planner, synthesizer): two series of one observation each.
    const calls = m.get('planscope_llm_call_duration_seconds')!;
    expect(calls.type).toBe('HISTOGRAM');
    expect(h.runtime.telemetry.metrics.render()).toMatch(/^planscope_llm_call_duration_seconds_count\{role="planner",model="qwen3:8b"\} 1$/m);
    expect(h.runtime.telemetry.metrics.render()).toMatch(/^planscope_llm_call_duration_seconds_count\{role="synthesizer",model="qwen3:8b"\} 1$/m);
  });

  it('shows queued and running runs and open event streams while they last', async () => {
    h = await startHarness(
      { planner: [{ content: plan('src/config.ts'), delayMs: 1500 }], synthesizer: [{ content: GOOD_ANSWER }] },
      { PLANSCOPE_MAX_CONCURRENT_RUNS: '1' },
    );
    const running = await h.runtime.registry.start({ task: TASK });
    const queued = await h.runtime.registry.start({ task: TASK, model: 'offline' });
    const watching = new AbortController();
    const stream = runEventStream(h.runtime, running.id, 0, watching.signal).getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('"type":"run_started"')) {
      const { value, done } = await stream.read();
      if (done) throw new Error('the stream ended before the run started');
      seen += decoder.decode(value);
    }

    const during = scrape(h);
    expect(sample(during, 'planscope_runs_running')).toBe(1);
    expect(sample(during, 'planscope_runs_queued')).toBe(1);
    expect(sample(during, 'planscope_sse_clients')).toBe(1);

    watching.abort();
    await h.runtime.registry.waitFor(running.id);
    await h.runtime.registry.waitFor(queued.id);
    const after = scrape(h);
    expect(sample(after, 'planscope_runs_running')).toBe(0);
    expect(sample(after, 'planscope_runs_queued')).toBe(0);
    expect(sample(after, 'planscope_sse_clients')).toBe(0);
    expect(sample(after, 'planscope_runs_total', { status: 'completed' })).toBeGreaterThanOrEqual(1);
  });
});
