import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunDetail } from '../../lib/api';
import { RunEvent } from '../../lib/events';
import { RunResult, toResult } from '../../lib/result';
import { foldRun } from '../../lib/run-state';

/**
 * Every recorded run under test/fixtures/runs/ (logs written by earlier
 * versions of planscope, see the README there) parses as events, folds, and
 * yields a Result that the strict `RunResult` schema takes back key for key,
 * also after a trip through JSON as the CLI's `--json` and the API send it
 * (the API's `RunDetail`, the Result with its events, as well).
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/runs');
const files = fs
  .readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .sort();

function eventsOf(file: string): RunEvent[] {
  return z.array(RunEvent).parse(JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')));
}

function resultOf(file: string): RunResult {
  return toResult(path.basename(file, '.json'), foldRun(eventsOf(file)));
}

describe('recorded runs round-trip through the Result schema', () => {
  it('has recorded runs of more than one version', () => {
    expect(new Set(files.map((f) => path.dirname(f))).size).toBeGreaterThanOrEqual(2);
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  it.each(files)('%s', (file) => {
    const result = resultOf(file);
    expect(RunResult.parse(result)).toEqual(result);
    const sent = JSON.parse(JSON.stringify(result)) as unknown;
    expect(RunResult.parse(sent)).toEqual(sent);
    expect(result.llmCalls).toHaveLength(result.llm.calls);
    expect(result.plans.every((p) => p.ended !== null)).toBe(true);
    // What `GET /api/runs/:id` sends, as the browser's fetch reads it back.
    const detail = JSON.parse(JSON.stringify({ ...result, events: eventsOf(file) })) as unknown;
    expect(RunDetail.parse(detail)).toEqual(detail);
  });

  it('tells why a run that met a symlink out of the workspace re-planned, in runs recorded before and after profiles existed', () => {
    for (const file of ['v1/symlink-escape-replanned.json', 'v0/symlink-escape-before-profiles.json']) {
      const { plans, status } = resultOf(file);
      expect(status).toBe('completed');
      expect(plans[0]!.steps[0]).toMatchObject({ path: 'docs/system-passwd', status: 'failed', code: 'denied_by_bridge' });
      expect(plans[0]!.failures).toMatchObject([{ step: 0, path: 'docs/system-passwd', code: 'denied_by_bridge' }]);
      expect(plans.map((p) => p.ended)).toEqual(['replanned_after_failure', 'accepted']);
    }
  });

  it('tells each kind of ending apart', () => {
    expect(resultOf('v1/rejected-then-accepted.json').plans.map((p) => p.ended)).toEqual(['rejected', 'accepted']);
    const general = resultOf('v1/general-reasoning-failed-exhausted.json');
    expect(general.plans.map((p) => p.ended)).toEqual(['replanned_after_failure', 'exhausted']);
    expect(general.plans[1]!.steps.map((s) => [s.status, s.code])).toEqual([
      ['failed', 'not_found'],
      ['skipped', 'dependency_failed'],
    ]);
    const react = resultOf('v1/react-completed.json');
    expect(react.plans.map((p) => p.ended)).toEqual(['accepted', 'replanned_after_failure']);
    const timedOut = resultOf('v1/planner-timeout.json');
    expect(timedOut.plans.map((p) => p.ended)).toEqual(['stopped']);
    expect(timedOut.llmCalls).toMatchObject([{ call: 'planner#1', status: 'failed', error: { code: 'timeout' } }]);
  });
});
