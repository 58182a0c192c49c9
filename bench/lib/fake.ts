import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FakeScript } from '../../test/support/fake-ollama';
import { APP_ROOT } from './paths';

/**
 * The fake Ollama HTTP server in its own process, as Ollama is: its JSON
 * parsing and streaming must not run on the event loop being measured.
 * Scripted over HTTP (`PUT /__fake/script`).
 */
export interface ExternalFake {
  url: string;
  setScript(script: FakeScript): Promise<void>;
  requests(): Promise<{ method: string; path: string; body: unknown }[]>;
  clearRequests(): Promise<void>;
  close(): Promise<void>;
}

export async function startExternalFake(): Promise<ExternalFake> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(APP_ROOT, 'test', 'support', 'fake-ollama-main.ts'), '--port', '0'],
    { cwd: APP_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  // A measurement that crashes must not leave the fake behind.
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`fake Ollama did not start: ${stderr}`)), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fake Ollama exited with ${code}: ${stderr}`));
    });
  });
  const control = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fake Ollama ${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  return {
    url,
    setScript: async (script) => void (await control('PUT', '/__fake/script', script)),
    requests: async () => (await control('GET', '/__fake/requests')).requests as { method: string; path: string; body: unknown }[],
    clearRequests: async () => void (await control('DELETE', '/__fake/requests')),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
