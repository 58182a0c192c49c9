export interface Repeating {
  /** No more rounds, waiting for one in flight. Idempotent. */
  stop(): Promise<void>;
}

/**
 * `round` every `intervalMs`, each started only once the one before has
 * settled (a slow database or host never piles rounds up), on a timer that
 * does not keep the process alive, until stopped or a round says false.
 * A round handles its own errors.
 */
export function repeatSettled(intervalMs: number, round: () => Promise<boolean | void>): Repeating {
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = round()
        .then((goOn) => {
          if (goOn === false) stopped = true;
        })
        .then(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
