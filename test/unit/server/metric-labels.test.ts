import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { RunEvent } from '../../../lib/events';
import { loadConfig } from '../../../server/config';
import { runLimits } from '../../../server/runs/run-limits';
import { MAX_MODEL_LABELS, OTHER_MODEL_LABEL, RunMetrics } from '../../../server/telemetry/run-metrics';
import { APP_ROOT } from '../../support/harness';

/**
 * Model names are what requests say they are: the metrics keep a label for
 * the first MAX_MODEL_LABELS distinct ones and count the rest as `other`, so
 * any number of names leaves `/api/metrics` the same size.
 */

const LIMITS = runLimits(loadConfig({}, APP_ROOT), { profile: 'file' });

/** One run of `model` as its events say it: created, a model call with its tokens, finished. */
function runOf(metrics: RunMetrics, runId: string, model: string): void {
  const events = [
    { seq: 1, type: 'run_created', task: 'a task', model, baseline: false, host: null, workspace: '/ws', limits: LIMITS },
    { seq: 2, type: 'llm_call_started', call: 'planner#1', label: 'planner', model, round: 1, host: null, promptChars: 40, promptArtifact: 'p.txt' },
    {
      seq: 3,
      type: 'llm_call_finished',
      call: 'planner#1',
      ok: true,
      responseChars: 12,
      thinkingChars: 0,
      promptTokens: 10,
      evalTokens: 5,
      durationMs: 20,
      loadDurationNs: null,
      doneReason: 'stop',
      responseArtifact: 'r.txt',
      thinkingArtifact: null,
      error: null,
    },
    { seq: 4, type: 'run_finished', status: 'completed', error: null },
  ];
  for (const event of events) {
    const parsed = RunEvent.safeParse({ at: 1_000, ...event });
    if (!parsed.success) throw new Error(`${event.type}: ${parsed.error.message}`);
    metrics.handle(runId, parsed.data);
  }
}

function modelsIn(text: string): Set<string> {
  const models = new Set<string>();
  for (const family of parsePrometheusTextFormat(text)) {
    for (const sample of family.metrics as { labels?: Record<string, string>; buckets?: unknown }[]) if (sample.labels?.model) models.add(sample.labels.model);
  }
  return models;
}

describe('model labels of the metrics are bounded', () => {
  for (const distinct of [1, MAX_MODEL_LABELS, MAX_MODEL_LABELS + 1, 30, 500]) {
    it(`${distinct} distinct model names: the first ${Math.min(distinct, MAX_MODEL_LABELS)} keep their label, the rest count as other`, () => {
      const metrics = new RunMetrics();
      const names = Array.from({ length: distinct }, (_, i) => `model-${i}:${'x'.repeat(i % 7 === 0 ? 150 : 3)}`);
      names.forEach((name, i) => runOf(metrics, `run-${i}`, name));
      // A labelled model seen again keeps its own label, after the bound was reached.
      runOf(metrics, 'again', names[0]!);
      const text = metrics.render();
      const expected = new Set(names.slice(0, MAX_MODEL_LABELS));
      if (distinct > MAX_MODEL_LABELS) expected.add(OTHER_MODEL_LABEL);
      expect(modelsIn(text)).toEqual(expected);
      const runs = parsePrometheusTextFormat(text).find((f) => f.name === 'planscope_runs_total')!;
      const count = (model: string) => Number(runs.metrics.find((m) => m.labels?.model === model)?.value ?? 0);
      expect(count(names[0]!)).toBe(2);
      expect(count(OTHER_MODEL_LABEL)).toBe(Math.max(0, distinct - MAX_MODEL_LABELS));
    });
  }

  it('the text served keeps the same series however many more models come', () => {
    const sized = (distinct: number) => {
      const metrics = new RunMetrics();
      for (let i = 0; i < distinct; i++) runOf(metrics, `run-${i}`, `model-${String(i).padStart(4, '0')}`);
      // The series' names and labels, without their values (a count of 980 is longer than one of 1).
      return metrics.render().split('\n').map((line) => line.replace(/ [^ ]+$/, ''));
    };
    expect(sized(1000)).toEqual(sized(MAX_MODEL_LABELS + 1));
  });
});
