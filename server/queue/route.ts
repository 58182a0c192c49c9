import { createHash } from 'node:crypto';
import { isInside } from '../../lib/policy';
import { reachesWorkspace, sameModel, servedModels, withTag, workerState, type WorkerRecord } from '../../lib/worker';

/**
 * Where a queued run may go: a worker that serves its model and reaches its
 * workspace. Both are in the job's task name, so a worker registers only the
 * task names of the models and roots it serves and graphile-worker's own
 * task filtering does the routing: a worker never locks a job it cannot run.
 */
export interface RunRoute {
  /** The model with its tag (`qwen3:8b`, `llama3:latest`), as workers list theirs. */
  model: string;
  /** The worker workspace root the run's workspace is in. */
  root: string;
}

const TASK_PREFIX = 'planscope.run:';
/** A route too long to be named in full; the digest's prefix differs from TASK_PREFIX, so the two never collide. */
const DIGEST_PREFIX = 'planscope.run#';
/** graphile-worker refuses a task identifier longer than this (a CHECK on its jobs table). */
export const MAX_TASK_NAME_CHARS = 128;

/**
 * The route's task name: readable (`planscope.run:qwen3:8b@/srv/ws`) when it fits graphile-worker's bound, else
 * its SHA-256. A model name (up to 200 characters) and a root (a path) have no bound of their own that would keep
 * it short; the queue and the workers compute the same name from the same route, so routing holds either way.
 */
export function taskName(route: RunRoute): string {
  const readable = `${TASK_PREFIX}${route.model}@${route.root}`;
  if (readable.length <= MAX_TASK_NAME_CHARS) return readable;
  return `${DIGEST_PREFIX}${createHash('sha256').update(readable, 'utf8').digest('hex')}`;
}

/**
 * The deepest of `roots` the workspace is in (so a run inside a nested root
 * goes to the workers of that root, the more specific choice), or null when
 * it is in none of them.
 */
export function rootOf(workspace: string, roots: readonly string[]): string | null {
  let best: string | null = null;
  for (const root of roots) {
    if (isInside(root, workspace) && (best === null || root.length > best.length)) best = root;
  }
  return best;
}

/** Every route a worker serving these models in these roots takes. */
export function routesServed(models: readonly string[], roots: readonly string[]): RunRoute[] {
  const routes: RunRoute[] = [];
  for (const model of new Set(models)) {
    for (const root of new Set(roots)) routes.push({ model, root });
  }
  return routes;
}

/**
 * The route a run is queued under: its model, and the deepest root of a
 * live worker serving that model that reaches its workspace. With none
 * (no worker can take it now), the root of this process's own worker
 * roots the workspace is in, or the workspace itself: the run waits for a
 * worker of that root to start.
 */
export function routeOf(
  run: { model: string; workspace: string },
  workers: readonly WorkerRecord[],
  now: number,
  lostAfterMs: number,
  ownRoots: readonly string[],
): RunRoute {
  const roots = workers
    .filter((w) => workerState(w, now, lostAfterMs) === 'live' && servedModels(w).some((m) => sameModel(m, run.model)))
    .flatMap((w) => w.workspaceRoots.filter((root) => reachesWorkspace(root, run.workspace)));
  return { model: withTag(run.model), root: rootOf(run.workspace, roots) ?? rootOf(run.workspace, ownRoots) ?? run.workspace };
}
