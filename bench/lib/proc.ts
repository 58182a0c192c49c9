import { spawn, type SpawnOptions } from 'node:child_process';
import net from 'node:net';

export interface Timed {
  /** ms from spawn until `until` matched the stdout so far (null if it never did). */
  matchedMs: number | null;
  exitMs: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns a command and times it until its stdout satisfies `until`, and until it exits. */
export function timeProcess(
  command: string,
  args: string[],
  options: SpawnOptions & { until: (stdout: string) => boolean; timeoutMs?: number },
): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let matchedMs: number | null = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (matchedMs === null && options.until(stdout)) matchedMs = performance.now() - started;
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ matchedMs, exitMs: performance.now() - started, code, stdout, stderr });
    });
  });
}

/** True once the text is one complete JSON document. */
export function isCompleteJson(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.endsWith('}')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
