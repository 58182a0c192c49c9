import { z } from 'zod';
import type { WaitReason } from './codes';
import { OFFLINE_MODEL } from './run-request';

/**
 * Workers: the processes that take runs, each registered in the store with
 * what it can serve and kept alive by its heartbeat. A worker is a process,
 * so its id is the start id that process records as the owner of its runs
 * (server/store/owner.ts): the runs it owns are those recorded under its
 * host, pid and that id.
 */

/** One model server a worker calls (an Ollama host, an OpenAI-compatible server, or its embedded engine: host `embedded`), and the models it listed when last read. */
export const WorkerHost = z.object({
  /** The server's URL, credentials masked; `embedded` for the llama.cpp engine inside the worker. */
  host: z.string(),
  /** The OpenAI-compatible server's configured name; absent for an Ollama host and the embedded engine. */
  server: z.string().optional(),
  /** Its models as runs name them: Ollama's `model:tag`, an OpenAI-compatible server's `<server>:<model id>`, the embedded engine's `embedded:<file name>`. */
  models: z.array(z.string()),
  /** Whether the host answered `/api/tags` (`/models`) when last read; an unreachable host serves nothing. */
  reachable: z.boolean(),
});
export type WorkerHost = z.infer<typeof WorkerHost>;

export const WorkerRecord = z.object({
  id: z.string(),
  /** The machine's host name. */
  host: z.string(),
  pid: z.number().int(),
  startedAt: z.number(),
  lastBeatAt: z.number(),
  /** When it stopped of its own accord (closed); null while it runs or after it died. */
  stoppedAt: z.number().nullable(),
  /** When a sweeper found its heartbeat missing and gave it up for lost; null otherwise. */
  lostAt: z.number().nullable().default(null),
  /** Runs it takes at once. */
  concurrency: z.number().int().min(1),
  hosts: z.array(WorkerHost),
  /** Directories the workspaces it can reach lie in (`/`: any). */
  workspaceRoots: z.array(z.string()),
  /** The runs it said it was working on at its last heartbeat. */
  runs: z.array(z.string()).optional(),
});
export type WorkerRecord = z.infer<typeof WorkerRecord>;
export type WorkerRecordInput = z.input<typeof WorkerRecord>;

export const WorkerState = z.enum(['live', 'lost', 'stopped']);
export type WorkerState = z.infer<typeof WorkerState>;

/**
 * A worker as `GET /api/workers` and the Workers page show it. The machine's details (`host`, `pid`, the Ollama
 * hosts' URLs, `workspaceRoots`) are null for a reader with PLANSCOPE_READ_TOKEN: they say where and on what the
 * server's machines run, and a read-only viewer needs the states, counts and models only.
 */
export const WorkerView = WorkerRecord.extend({
  host: z.string().nullable(),
  pid: z.number().int().nullable(),
  hosts: z.array(WorkerHost.extend({ host: z.string().nullable() })),
  workspaceRoots: z.array(z.string()).nullable(),
  state: WorkerState,
  /** Unfinished runs recorded as owned by it. */
  running: z.array(z.string()),
});
export type WorkerView = z.infer<typeof WorkerView>;

/** The worker without its machine's details, as a read-only viewer sees it. */
export function withoutMachineDetails(worker: WorkerView): WorkerView {
  return { ...worker, host: null, pid: null, hosts: worker.hosts.map((h) => ({ ...h, host: null })), workspaceRoots: null };
}

/** Runs of one model not started yet: all of them, and those that have said why they wait (`run_waiting`). */
export const QueueDepth = z.object({
  model: z.string(),
  queued: z.number().int().min(0),
  waiting: z.number().int().min(0),
});
export type QueueDepth = z.infer<typeof QueueDepth>;

/** `GET /api/workers`. */
export const WorkersResponse = z.object({
  workers: z.array(WorkerView),
  /** False when the machines' details were left out (a read-only viewer). */
  machineDetails: z.boolean(),
  queue: z.array(QueueDepth),
});
export type WorkersResponse = z.infer<typeof WorkersResponse>;

/** Stopped when it said so; lost when a sweeper gave it up or its heartbeat is older than `lostAfterMs`; else live. */
export function workerState(record: Pick<WorkerRecord, 'stoppedAt' | 'lostAt' | 'lastBeatAt'>, now: number, lostAfterMs: number): WorkerState {
  if (record.stoppedAt !== null) return 'stopped';
  if (record.lostAt !== null || now - record.lastBeatAt > lostAfterMs) return 'lost';
  return 'live';
}

/** A model name with its tag: Ollama reads a name without one as `:latest`. A colon before the last `/` is a registry's port, not a tag. */
export function withTag(name: string): string {
  return name.lastIndexOf(':') > name.lastIndexOf('/') ? name : `${name}:latest`;
}

/** Whether two names are the same model to Ollama (`qwen3` and `qwen3:latest` are). */
export function sameModel(a: string, b: string): boolean {
  return withTag(a) === withTag(b);
}

/** The models a worker can run: those of its reachable hosts (its embedded engine's among them), and the offline baseline, which needs no host. */
export function servedModels(worker: { hosts: readonly Pick<WorkerHost, 'models' | 'reachable'>[] }): string[] {
  const served = [OFFLINE_MODEL];
  for (const host of worker.hosts) {
    if (!host.reachable) continue;
    for (const model of host.models) if (!served.some((known) => sameModel(known, model))) served.push(model);
  }
  return served;
}

/** Whether `workspace` is `root` or lies inside it (both absolute, as the workers and runs record them). */
export function reachesWorkspace(root: string, workspace: string): boolean {
  if (workspace === root) return true;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return workspace.startsWith(prefix);
}

export interface WorkerWait {
  reason: Extract<WaitReason, 'no_worker' | 'no_worker_for_model' | 'no_worker_for_workspace'>;
  message: string;
}

/**
 * Why a run of `model` in `workspace` cannot be taken by any worker now, or
 * null when a live worker serves the model and reaches the workspace. The
 * message names what is missing, for the person watching the queued run.
 */
export function queueWaiting(
  workers: readonly WorkerRecord[],
  run: { model: string; workspace: string },
  now: number,
  lostAfterMs: number,
): WorkerWait | null {
  const live = workers.filter((worker) => workerState(worker, now, lostAfterMs) === 'live');
  if (live.length === 0) {
    return { reason: 'no_worker', message: `No worker is running: none has sent a heartbeat in the last ${Math.round(lostAfterMs / 1000)} s. The run waits until one starts.` };
  }
  const serving = live.filter((worker) => servedModels(worker).some((model) => sameModel(model, run.model)));
  if (serving.length === 0) {
    const offered = [...new Set(live.flatMap(servedModels))].join(', ');
    return { reason: 'no_worker_for_model', message: `No running worker serves the model ${run.model} (they serve ${offered}). The run waits until one that has it starts.` };
  }
  if (!serving.some((worker) => worker.workspaceRoots.some((root) => reachesWorkspace(root, run.workspace)))) {
    const roots = [...new Set(serving.flatMap((worker) => worker.workspaceRoots))].join(', ');
    return {
      reason: 'no_worker_for_workspace',
      message: `No running worker that serves ${run.model} can reach the workspace ${run.workspace} (their workspace roots: ${roots}). The run waits until one that can starts.`,
    };
  }
  return null;
}
