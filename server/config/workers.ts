import { ConfigError } from '../errors';

/**
 * A worker is lost when its heartbeat is older than `lostAfterMs`: with less
 * than two heartbeats in that window, one late beat (a busy event loop, a
 * slow database) would have a working worker taken for dead.
 */
export function workerSettings(heartbeatMs: number, lostAfterMs: number, modelsRefreshMs: number, graceMs: number) {
  if (lostAfterMs < 2 * heartbeatMs) {
    throw new ConfigError(
      `Invalid configuration: PLANSCOPE_WORKER_LOST_AFTER_MS (${lostAfterMs}) must be at least twice PLANSCOPE_WORKER_HEARTBEAT_MS (${heartbeatMs}), so that one late heartbeat does not have a working worker taken for lost: set it to ${2 * heartbeatMs} or more.`,
    );
  }
  return {
    heartbeatMs,
    /** At least twice `heartbeatMs`. */
    lostAfterMs,
    /** How often a worker reads its hosts' model lists again, and registers what changed. */
    modelsRefreshMs,
    /** A stopping worker lets its runs go on this long, then hands the rest back to the queue for another worker to resume. */
    graceMs,
  };
}
