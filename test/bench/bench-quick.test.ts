import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const MEASUREMENTS = ['engine', 'overhead', 'parallel', 'tokens', 'tracing', 'peer', 'cold', 'store', 'filters', 'queue', 'real-model', 'web'];

interface QuickReport {
  quick: boolean;
  measurements: {
    name: string;
    error: string | null;
    output: { figures: { key: string; value: number | null }[]; skipped?: string[] } | null;
  }[];
}

/**
 * CI does not time anything (too noisy), but it runs the benchmark once in
 * its quick mode so that a change which breaks a measurement is caught:
 * `npm run bench -- --quick` must run every measurement to the end. Targets
 * are not checked here. The dashboard part needs a production build and
 * Chromium; without them it reports itself skipped, which a quick run may
 * do as long as it says so (a full run that measures nothing in a
 * measurement fails: test/bench/compare.test.ts). The real-model
 * measurement runs a real model on one thread: on a loaded machine the whole
 * quick run takes minutes.
 */
describe('npm run bench -- --quick', () => {
  it('runs every measurement without crashing', async () => {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['bench/run.mjs', '--quick'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      child.on('close', (exit) => resolve({ code: exit, output }));
    });
    expect(code, output.slice(-4000)).toBe(0);

    const report = JSON.parse(fs.readFileSync(path.join(root, 'bench', 'results', 'quick.json'), 'utf8')) as QuickReport;
    expect(report.quick).toBe(true);
    expect(report.measurements.map((m) => m.name)).toEqual(MEASUREMENTS);
    for (const m of report.measurements) {
      expect(m.error, `${m.name} crashed`).toBeNull();
      const figures = m.output?.figures ?? [];
      const skipped = m.output?.skipped ?? [];
      expect(figures.length + skipped.length, `${m.name} reported nothing`).toBeGreaterThan(0);
      for (const f of figures) expect(f.value === null || Number.isFinite(f.value), `${m.name}: ${f.key} = ${f.value}`).toBe(true);
      for (const s of skipped) expect(output, `${m.name} skipped "${s}" without saying so`).toContain(`${m.name}: ${s}`);
    }
  }, 420_000);
});
