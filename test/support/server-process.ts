/**
 * The production dashboard (`next start` on the built app) as a child
 * process, for tests that must see what a user's server does: crash
 * recovery after SIGKILL, graceful SIGTERM, the token proxy. Each server
 * gets its own port and data directory; every wait here is bounded.
 *
 * Needs a build (`.next/` and `dist/bridge.mjs`): the e2e runner makes one
 * before Playwright starts, which is why the specs that use this live in
 * `e2e/`, not in vitest.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const APP_ROOT = path.resolve(import.meta.dirname, '../..');
const NEXT_BIN = path.join(APP_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
/** A cold `next start` is ~1 s; two busy cores and a first SQLite migration can make it much slower. */
const READY_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 30_000;

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerOptions {
  /** Defaults to a fresh temporary directory, removed by `cleanup()`. */
  dataDir?: string;
  hostname?: string;
  port?: number;
  /** Added to a clean environment (no inherited PLANSCOPE_*, OLLAMA_HOST, PORT or HOSTNAME). */
  env?: Record<string, string>;
  /** Sent as `Authorization: Bearer` while waiting for readiness. */
  token?: string;
}

export interface ServerProcess {
  /** `http://<host>:<port>` */
  url: string;
  port: number;
  pid: number;
  dataDir: string;
  /** Resolves once the process has exited, however it ended. */
  exited: Promise<ServerExit>;
  /** Everything the server printed so far (stdout and stderr interleaved). */
  output(): string;
  /** Sends `signal` and waits (bounded) for the exit; SIGKILLs and throws if it never comes. */
  stop(signal?: NodeJS.Signals): Promise<ServerExit>;
  /** Kills the process if it still runs and removes a data directory this helper created. */
  cleanup(): Promise<void>;
}

/** A TCP port nobody listens on right now (the tiny window before the server binds it is acceptable in tests). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Spawns `next start` without waiting for it; see `startProductionServer` for the usual case. */
export async function spawnProductionServer(options: ServerOptions = {}): Promise<ServerProcess> {
  const hostname = options.hostname ?? '127.0.0.1';
  const port = options.port ?? (await freePort(hostname.startsWith('127.') ? hostname : '127.0.0.1'));
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-server-'));
  const env: Record<string, string> = {
    ...cleanEnvironment(),
    NEXT_TELEMETRY_DISABLED: '1',
    HOSTNAME: hostname,
    PORT: String(port),
    PLANSCOPE_DATA_DIR: dataDir,
    ...options.env,
  };
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', hostname], {
    cwd: APP_ROOT,
    // Next's types make NODE_ENV required; `next start` sets it itself.
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const append = (chunk: Buffer) => {
    // Bounded: a chatty failing server must not eat the test runner's memory.
    log = (log + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<ServerExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('next start could not be spawned');

  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<ServerExit> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const outcome = await Promise.race([exited, sleep(EXIT_TIMEOUT_MS).then(() => null)]);
    if (outcome) return outcome;
    child.kill('SIGKILL');
    await exited;
    throw new Error(`next start (pid ${pid}) did not exit within ${EXIT_TIMEOUT_MS} ms of ${signal}\n${log}`);
  };

  return {
    url: `http://${hostname}:${port}`,
    port,
    pid,
    dataDir,
    exited,
    output: () => log,
    stop,
    async cleanup() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await Promise.race([exited, sleep(EXIT_TIMEOUT_MS)]);
      }
      if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Spawns `next start` and resolves once it answers HTTP; rejects (with its output) if it exits first. */
export async function startProductionServer(options: ServerOptions = {}): Promise<ServerProcess> {
  const server = await spawnProductionServer(options);
  try {
    await waitUntilServing(server, options.token);
  } catch (error) {
    await server.cleanup();
    throw error;
  }
  return server;
}

export async function waitUntilServing(server: ServerProcess, token?: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exit: ServerExit | null = null;
  void server.exited.then((e) => (exit = e));
  while (Date.now() < deadline) {
    if (exit) throw new Error(`next start exited before serving (${JSON.stringify(exit)}):\n${server.output()}`);
    try {
      // Any HTTP answer means the server is up (with a token configured, a request without it gets 401).
      await fetch(`${server.url}/api/runs?limit=1`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(2000),
      });
      return;
    } catch {
      await sleep(200);
    }
  }
  throw new Error(`next start did not answer within ${READY_TIMEOUT_MS} ms:\n${server.output()}`);
}

/**
 * Processes whose parent is `pid`, with their command lines (Linux /proc).
 * The MCP bridge shows up here as `node .../dist/bridge.mjs ... -- <workspace>`.
 */
export function childProcesses(pid: number): { pid: number; command: string }[] {
  const children: { pid: number; command: string }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 is the parent pid; the command name (field 2) may hold spaces and parentheses, so split after its last ')'.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== pid) continue;
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      children.push({ pid: Number(entry), command });
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** Workspace bridge processes a process has spawned that are still alive (by default, this one's). */
export function bridgeProcesses(parent: number = process.pid): number[] {
  return childProcesses(parent)
    .filter((p) => p.command.includes('bridge') && processRunning(p.pid))
    .map((p) => p.pid);
}

/** True while a process with this pid exists and is not a zombie. */
export function processRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The inherited environment without anything that would configure planscope behind the test's back. */
function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (key.startsWith('PLANSCOPE_') || key === 'OLLAMA_HOST' || key === 'PORT' || key === 'HOSTNAME') continue;
    // Playwright and vitest put their own loaders into NODE_OPTIONS; the server must run as a user runs it.
    if (key.startsWith('NEXT_') || key.startsWith('__NEXT') || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  return env;
}

/** Reads /proc/<pid>/status for the resident set size, in bytes: what GET /api/health reports per bridge. */
export { residentBytes as residentSetBytes } from '../../server/runs/process-memory';
