/**
 * A small metric registry that renders the Prometheus text exposition
 * format (version 0.0.4): counters, histograms and gauges with labels.
 *
 * Why not the OpenTelemetry SDK's Prometheus exporter, or prom-client:
 * `GET /api/metrics` must count from the first run whether or not an OTLP
 * exporter is configured, and with none configured the SDK is not to be
 * loaded at all; prom-client costs ~40 ms at every start of the CLI and the
 * dashboard (it loads @opentelemetry/api with it). planscope's metrics are a
 * dozen fixed series; this is the part of those libraries it needs, and
 * the tests read its output with an independent Prometheus text parser.
 */

export type Labels<L extends string> = Record<L, string>;

interface MetricBase<L extends string> {
  /** Prometheus name; a counter's ends in `_total`. */
  name: string;
  help: string;
  labels: readonly L[];
}

abstract class Metric<L extends string, V> {
  protected readonly series = new Map<string, { labels: Labels<L>; value: V }>();

  constructor(readonly def: MetricBase<L>) {}

  protected entry(labels: Labels<L>, fresh: () => V): { labels: Labels<L>; value: V } {
    const key = this.def.labels.map((l) => labels[l]).join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, value: fresh() };
      this.series.set(key, entry);
    }
    return entry;
  }

  abstract render(): string[];

  protected header(type: string): string[] {
    return [`# HELP ${this.def.name} ${escapeHelp(this.def.help)}`, `# TYPE ${this.def.name} ${type}`];
  }
}

export class Counter<L extends string> extends Metric<L, number> {
  add(labels: Labels<L>, value = 1): void {
    this.entry(labels, () => 0).value += value;
  }

  value(labels: Labels<L>): number {
    return this.entry(labels, () => 0).value;
  }

  render(): string[] {
    const lines = this.header('counter');
    for (const { labels, value } of this.series.values()) lines.push(`${this.def.name}${labelText(this.def.labels, labels)} ${num(value)}`);
    return lines;
  }
}

interface HistogramValue {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string> extends Metric<L, HistogramValue> {
  constructor(
    def: MetricBase<L>,
    /** Upper bounds, ascending; `+Inf` is implied. */
    readonly buckets: readonly number[],
  ) {
    super(def);
  }

  observe(labels: Labels<L>, value: number): void {
    const entry = this.entry(labels, () => ({ counts: this.buckets.map(() => 0), sum: 0, count: 0 })).value;
    this.buckets.forEach((bound, i) => {
      if (value <= bound) entry.counts[i]! += 1;
    });
    entry.sum += value;
    entry.count += 1;
  }

  render(): string[] {
    const lines = this.header('histogram');
    for (const { labels, value } of this.series.values()) {
      this.buckets.forEach((bound, i) => {
        lines.push(`${this.def.name}_bucket${labelText([...this.def.labels, 'le'], { ...labels, le: num(bound) })} ${value.counts[i]}`);
      });
      lines.push(`${this.def.name}_bucket${labelText([...this.def.labels, 'le'], { ...labels, le: '+Inf' })} ${value.count}`);
      lines.push(`${this.def.name}_sum${labelText(this.def.labels, labels)} ${num(value.sum)}`);
      lines.push(`${this.def.name}_count${labelText(this.def.labels, labels)} ${value.count}`);
    }
    return lines;
  }
}

/** A value read when the metrics are collected (queue depth, open streams). */
export class Gauge extends Metric<never, number> {
  constructor(
    def: Omit<MetricBase<never>, 'labels'>,
    readonly read: () => number,
  ) {
    super({ ...def, labels: [] });
  }

  render(): string[] {
    return [...this.header('gauge'), `${this.def.name} ${num(this.read())}`];
  }
}

export function renderMetrics(metrics: readonly Metric<string, unknown>[]): string {
  return `${metrics.flatMap((m) => m.render()).join('\n')}\n`;
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function labelText(names: readonly string[], labels: Record<string, string>): string {
  if (names.length === 0) return '';
  return `{${names.map((n) => `${n}="${escapeLabel(labels[n] ?? '')}"`).join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function num(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return Number.isNaN(value) ? 'NaN' : String(value);
}
