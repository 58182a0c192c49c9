import fs from 'node:fs';
import { dirname } from 'node:path';
import type { LogFileHealth } from '../../lib/api';
import { callEntry } from '../../lib/call-log';
import type { EventOf, RunEvent } from '../../lib/events';
import type { CallLogLine, EventLogLine, GapLogLine } from '../../lib/log-line';
import { foldRun } from '../../lib/run-state';
import { guarded } from './guarded';
import type { RunFeed } from './index';

/**
 * `PLANSCOPE_LOG_FILE`: every run's events, and every LLM call once it has
 * ended, appended to a plain file as JSON lines (`lib/log-line.ts`), for
 * `grep`, `jq` and log shippers. Events are written as the store holds them,
 * so what the store masks (credentials in hosts and error texts) is masked
 * here the same way.
 *
 * The run never waits for the file: a line is queued in memory and the
 * queue is appended in order, one batch at a time, off the event loop. A
 * synchronous append measured about 5 µs a line on a local disk, but one
 * on a slow or hung file system would stop every run in the process; the
 * queued write costs the loop one push per line. The queue is bounded;
 * lines past the bound, and lines whose write failed, are dropped and
 * counted, and the next line written is a `log_gap` line saying how many.
 *
 * Each batch opens the file by its path with O_APPEND and closes it again,
 * so a file rotated away (renamed, or removed) is created anew at the path
 * by the next batch, and one truncated in place (copytruncate) is written
 * at its new end; several processes may append to one file.
 */

/** Characters of lines waiting to be written at most; past it, lines are dropped (and counted). */
const MAX_QUEUED_CHARS = 8 * 1024 * 1024;
/** How long closing waits for queued lines to be written (a CLI run's exit, a server's shutdown). */
const CLOSE_WAIT_MS = 2000;

export class LogFile {
  private queue: string[] = [];
  private queuedChars = 0;
  private writing: Promise<void> | null = null;
  private linesWritten = 0;
  private linesDropped = 0;
  /** Lines dropped since the last batch written: the next batch begins with a `log_gap` line. */
  private gap = 0;
  private error: string | null = null;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly warn: (message: string) => void,
  ) {
    try {
      fs.mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      this.failed(error);
    }
  }

  append(line: EventLogLine | CallLogLine): void {
    if (this.closed) return;
    const text = `${JSON.stringify(line)}\n`;
    if (this.queuedChars + text.length > MAX_QUEUED_CHARS) {
      this.drop(1);
      return;
    }
    this.queue.push(text);
    this.queuedChars += text.length;
    this.writing ??= this.writeQueued();
  }

  /** What `GET /api/health` shows. */
  status(): LogFileHealth {
    return { path: this.path, ok: this.error === null, error: this.error, linesWritten: this.linesWritten, linesDropped: this.linesDropped };
  }

  /** Settles once every line queued so far has been written or dropped. */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Takes no more lines and waits, bounded, for the queued ones to be written. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.race([this.flushed(), new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
  }

  /** Called only with lines queued, so it awaits before it can end, and `writing` is set before it is cleared. */
  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      this.queuedChars = 0;
      const gap: GapLogLine[] = this.gap > 0 ? [{ time: new Date().toISOString(), type: 'log_gap', lines: this.gap }] : [];
      try {
        await fs.promises.appendFile(this.path, [...gap.map((g) => `${JSON.stringify(g)}\n`), ...batch].join(''), { mode: 0o600 });
        this.linesWritten += batch.length;
        this.gap = 0;
        this.error = null;
      } catch (error) {
        this.drop(batch.length);
        this.failed(error);
      }
    }
    this.writing = null;
  }

  private drop(lines: number): void {
    this.linesDropped += lines;
    this.gap += lines;
  }

  /** Said once when the file stops taking lines, and again only after it took some since. */
  private failed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (this.error === null) {
      this.warn(`PLANSCOPE_LOG_FILE ${this.path} cannot be written (${message}); runs go on, and its lines are dropped until it can (see /api/health).`);
    }
    this.error = message;
  }
}

/** Appends every run's events, and each LLM call as it ends, to `file`; returns the unsubscribe. */
export function followRuns(file: LogFile, feed: RunFeed): () => void {
  /** Calls begun and not yet ended, by run, by call name. */
  const open = new Map<string, Map<string, EventOf<'llm_call_started'>>>();
  const callLine = (runId: string, started: EventOf<'llm_call_started'>, end: RunEvent): CallLogLine => {
    const ended = end.type === 'llm_call_finished';
    // The reducer's own call view, from the call's two events: the entry is the Result's.
    const view = foldRun(ended ? [started, end] : [started]).llmCalls[0]!;
    return { time: new Date(end.at).toISOString(), runId, type: 'llm_call', ...callEntry(view, !ended) };
  };
  return feed.subscribeAll((runId, event) =>
    guarded('log file', () => {
      file.append({ time: new Date(event.at).toISOString(), runId, ...event });
      if (event.type === 'llm_call_started') {
        const calls = open.get(runId) ?? new Map<string, EventOf<'llm_call_started'>>();
        open.set(runId, calls.set(event.call, event));
      } else if (event.type === 'llm_call_finished') {
        const started = open.get(runId)?.get(event.call);
        open.get(runId)?.delete(event.call);
        if (started) file.append(callLine(runId, started, event));
      } else if (event.type === 'run_finished') {
        for (const started of open.get(runId)?.values() ?? []) file.append(callLine(runId, started, event));
        open.delete(runId);
      }
    }),
  );
}

export function openLogFile(filePath: string, feed: RunFeed): { file: LogFile; close(): Promise<void> } {
  const file = new LogFile(filePath, (message) => process.stderr.write(`planscope: ${message}\n`));
  const unsubscribe = followRuns(file, feed);
  return {
    file,
    async close() {
      unsubscribe();
      await file.close();
    },
  };
}
