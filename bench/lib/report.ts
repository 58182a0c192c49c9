import fs from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * Each measurement is its own process (a crash, a leak or a warm JIT in one
 * does not colour the next). It reads `--quick` and `--out FILE` and writes
 * one JSON document there: figures, each next to its target.
 */
export interface Figure {
  /** Stable key, e.g. `overhead.ratio`. */
  key: string;
  label: string;
  value: number | null;
  unit: string;
  /** Human form of the target, e.g. `<= 1.05`; null for figures reported without one. */
  target: string | null;
  /** Whether the target was met; null when there is no target or no value. */
  pass: boolean | null;
  note?: string;
  /** Which way is better, where neither the target nor the unit says (bench/lib/compare.mjs). */
  better?: 'lower' | 'higher';
  /** How far the figure wobbles between samples, in its unit: a change within the two runs' spreads is not a regression. */
  spread?: number;
}

export interface MeasurementOutput {
  name: string;
  figures: Figure[];
  details: Record<string, unknown>;
  /** What could not be measured and why (the measurement still counts as run). */
  skipped?: string[];
}

export interface BenchArgs {
  quick: boolean;
  out: string | null;
}

export function benchArgs(): BenchArgs {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { quick: { type: 'boolean', default: false }, out: { type: 'string' } },
    strict: false,
  });
  return { quick: values.quick === true, out: typeof values.out === 'string' ? values.out : null };
}

export function atMost(key: string, label: string, value: number | null, limit: number, unit: string, note?: string): Figure {
  return { key, label, value, unit, target: `<= ${limit}${unit && unit !== 'x' ? ` ${unit}` : ''}`, pass: value === null ? null : value <= limit, ...(note && { note }) };
}

export function atLeast(key: string, label: string, value: number | null, limit: number, unit: string, note?: string): Figure {
  return { key, label, value, unit, target: `>= ${limit}${unit && unit !== 'x' ? ` ${unit}` : ''}`, pass: value === null ? null : value >= limit, ...(note && { note }) };
}

export function info(key: string, label: string, value: number | null, unit: string, note?: string): Figure {
  return { key, label, value, unit, target: null, pass: null, ...(note && { note }) };
}

export function writeOutput(args: BenchArgs, output: MeasurementOutput): void {
  const text = JSON.stringify(output, null, 2);
  if (args.out) fs.writeFileSync(args.out, text);
  else process.stdout.write(`${text}\n`);
}

/** Progress for people, on stderr: stdout stays free for the orchestrator's table. */
export function log(message: string): void {
  process.stderr.write(`  ${message}\n`);
}
