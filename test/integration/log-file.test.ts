import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LogLine, type CallLogLine } from '../../lib/log-line';
import type { FakeScript } from '../support/fake-ollama';
import { endpointAnswer, ENDPOINT_TASK, plan, startHarness, until, type Harness } from '../support/harness';

/**
 * PLANSCOPE_LOG_FILE through a real runtime: every event as stored and
 * every LLM call as the Result has it, one JSON line each; credentials
 * masked as in the store; a file that cannot be written, rotated away or
 * never read from (a FIFO: its open blocks until a reader comes) never
 * fails or holds up a run.
 */

const PASSWORD = 'hunter2-very-secret';
const SCRIPT: FakeScript = {
  planner: [{ content: plan('docs/system-passwd') }, { content: plan('src/config.ts') }],
  synthesizer: [{ content: endpointAnswer() }],
};

let dir: string;
let h: Harness | undefined;
let stderr: string[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-log-'));
  stderr = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (String(chunk).includes('PLANSCOPE_LOG_FILE')) stderr.push(String(chunk));
    return write(chunk, ...(rest as []));
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A runtime logging to `logFile`, reaching the fake Ollama with credentials that must only ever be shown masked. */
const harness = (logFile: string) =>
  startHarness(SCRIPT, (url) => ({ OLLAMA_HOST: url.replace('http://', `http://planscope:${PASSWORD}@`), PLANSCOPE_LOG_FILE: logFile }));
const flushed = () => h!.runtime.logFile!.flushed();

const linesOf = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => LogLine.parse(JSON.parse(l)));

describe('PLANSCOPE_LOG_FILE', () => {
  it('holds every event as stored and every LLM call as the Result has it, in order, masked as the store is', async () => {
    const file = path.join(dir, 'logs', 'agent.log');
    h = await harness(file);
    const { id, result, events } = await h.run(ENDPOINT_TASK);
    await h.close();
    const text = fs.readFileSync(file, 'utf8');
    const lines = linesOf(file);
    expect(lines.every((l) => l.type === 'log_gap' || l.runId === id)).toBe(true);

    const eventLines = lines.filter((l) => l.type !== 'llm_call' && l.type !== 'log_gap');
    expect(eventLines.map(({ time: _time, runId: _runId, ...event }) => event)).toEqual(events);
    expect(eventLines.every((l) => l.time === new Date(l.at).toISOString())).toBe(true);

    const calls = lines.filter((l): l is CallLogLine => l.type === 'llm_call');
    expect(calls.map(({ time: _time, runId: _runId, type: _type, ...entry }) => entry)).toEqual(result.llmCalls);
    // Each call's line follows its end.
    const finished = lines.findIndex((l) => l.type === 'llm_call_finished');
    expect(lines[finished + 1]).toMatchObject({ type: 'llm_call', call: 'planner#1', status: 'ok' });
    expect(lines.find((l) => l.type === 'step_failed')).toMatchObject({ code: 'denied_by_bridge', path: 'docs/system-passwd' });

    expect(text).toContain('http://****:****@127.0.0.1');
    expect(text).not.toContain(PASSWORD);
    expect(h.runtime.logFile?.status()).toEqual({ path: file, ok: true, error: null, linesWritten: lines.length, linesDropped: 0 });
    expect(stderr).toEqual([]);
  });

  it('a file that cannot be written: the run completes, one warning, the error and the dropped lines in the status; a gap line once it can be', async () => {
    const file = path.join(dir, 'agent.log');
    fs.mkdirSync(file);
    h = await harness(file);
    expect((await h.run(ENDPOINT_TASK)).result.status).toBe('completed');
    expect((await h.run(ENDPOINT_TASK)).result.status).toBe('completed');
    await flushed();
    const status = h.runtime.logFile!.status();
    expect(status).toMatchObject({ ok: false, error: expect.stringMatching(/EISDIR/), linesWritten: 0 });
    expect(status.linesDropped).toBeGreaterThan(40);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/PLANSCOPE_LOG_FILE .*agent\.log cannot be written .*EISDIR.*runs go on/);

    fs.rmdirSync(file);
    const { id } = await h.run(ENDPOINT_TASK);
    await h.close();
    const lines = linesOf(file);
    expect(lines[0]).toEqual({ time: expect.any(String), type: 'log_gap', lines: status.linesDropped });
    expect(lines.slice(1).every((l) => l.type !== 'log_gap' && l.runId === id)).toBe(true);
    expect(h.runtime.logFile!.status()).toMatchObject({ ok: true, error: null, linesDropped: status.linesDropped });
  });

  it('a file rotated away or removed is created again at its path', async () => {
    const file = path.join(dir, 'agent.log');
    h = await harness(file);
    const runIds = () => new Set(linesOf(file).map((l) => (l.type === 'log_gap' ? null : l.runId)));
    const first = await h.run(ENDPOINT_TASK);
    await flushed();
    fs.renameSync(file, `${file}.1`);
    const second = await h.run(ENDPOINT_TASK);
    await flushed();
    expect(runIds()).toEqual(new Set([second.id]));
    expect(new Set(linesOf(`${file}.1`).map((l) => (l.type === 'log_gap' ? null : l.runId)))).toEqual(new Set([first.id]));
    fs.rmSync(file);
    const third = await h.run(ENDPOINT_TASK);
    await flushed();
    expect(runIds()).toEqual(new Set([third.id]));
  });

  it('never holds up a run: a FIFO nobody reads blocks its open, and the run still completes', async () => {
    const file = path.join(dir, 'agent.fifo');
    execFileSync('mkfifo', [file]);
    h = await harness(file);
    const { result } = await h.run(ENDPOINT_TASK);
    expect(result.status).toBe('completed');
    expect(h.runtime.logFile!.status()).toMatchObject({ linesWritten: 0 });
    // Closing waits for the blocked write only so long.
    await h.close();
    // A reader lets the blocked open finish, so no thread is left waiting on it; what it wrote is read as it comes.
    const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    let read = '';
    const buffer = Buffer.alloc(64 * 1024);
    await until('the blocked write to finish', () => {
      read += readAvailable(reader, buffer);
      return h!.runtime.logFile!.status().linesWritten > 0;
    });
    fs.closeSync(reader);
    expect(read).toContain('"type":"run_created"');
  });
});

/** What the FIFO holds now; nothing when no writer has written yet. */
function readAvailable(fd: number, buffer: Buffer): string {
  try {
    return buffer.toString('utf8', 0, fs.readSync(fd, buffer));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return '';
    throw error;
  }
}
