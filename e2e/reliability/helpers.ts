/**
 * Small helpers shared by the reliability specs: talking to a production
 * server over plain HTTP (not through a page) and waiting, always bounded.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunDetail, RunList } from '../../lib/api';
import type { RunEvent } from '../../lib/events';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const SAMPLE_WORKSPACE = path.join(REPO_ROOT, 'sample-workspace');
/** The fake secret in the sample workspace's `.env.local`. */
export const CANARY = 'sk-planscope-canary-0000';
export const TASK = 'How is the model endpoint configured?';
/** Upper bound of every wait in these specs. */
export const WAIT_MS = 30_000;

export const plan = (...paths: string[]) =>
  JSON.stringify({ steps: paths.map((p) => ({ purpose: `Read ${p}`, path: p })) });

export const answer = (text: string, citations: { path: string; startLine: number; endLine: number; quote: string }[] = []) =>
  JSON.stringify({ claims: [{ text, citations }] });

/** A copy of the sample workspace that a spec may change; removed by the caller. */
export function copyWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-e2e-ws-'));
  fs.cpSync(SAMPLE_WORKSPACE, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, waitMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${waitMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A plain HTTP client for one server (an optional bearer token on every request). */
export class Api {
  constructor(
    readonly base: string,
    private readonly token?: string,
  ) {}

  fetch(pathname: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.token) headers.set('authorization', `Bearer ${this.token}`);
    return fetch(`${this.base}${pathname}`, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(WAIT_MS) });
  }

  async startRun(body: Record<string, unknown>): Promise<string> {
    const response = await this.fetch('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST /api/runs: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  }

  async run(id: string): Promise<RunDetail> {
    const response = await this.fetch(`/api/runs/${id}`);
    if (!response.ok) throw new Error(`GET /api/runs/${id}: ${response.status}`);
    return (await response.json()) as RunDetail;
  }

  async list(limit = 100): Promise<RunList> {
    const response = await this.fetch(`/api/runs?limit=${limit}`);
    if (!response.ok) throw new Error(`GET /api/runs: ${response.status}`);
    return (await response.json()) as RunList;
  }

  /** Waits until the run has an event matching `match`, and returns its events so far. */
  waitForEvent(id: string, what: string, match: (e: RunEvent) => boolean): Promise<RunEvent[]> {
    return until(`${what} in run ${id}`, async () => {
      const { events } = await this.run(id);
      return events.some(match) ? events : null;
    });
  }

  waitForEnd(id: string): Promise<RunDetail> {
    return until(`run ${id} to end`, async () => {
      const detail = await this.run(id);
      return ['queued', 'running'].includes(detail.status) ? null : detail;
    });
  }
}

export const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** Names of every artifact a run's events refer to. */
export function artifactNames(events: readonly RunEvent[]): string[] {
  const names: string[] = [];
  for (const e of events) {
    if (e.type === 'llm_call_started') names.push(e.promptArtifact);
    if (e.type === 'llm_call_finished') names.push(e.responseArtifact, ...(e.thinkingArtifact ? [e.thinkingArtifact] : []));
    if (e.type === 'step_finished') names.push(e.observation.artifact);
  }
  return names;
}

/** The artifact URL path, each segment encoded (observation names hold slashes). */
export function artifactPath(id: string, name: string): string {
  return `/api/runs/${id}/artifacts/${name.split('/').map(encodeURIComponent).join('/')}`;
}

/** A seeded PRNG (mulberry32): a failing random schedule can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
