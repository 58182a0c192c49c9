/**
 * Runs the steps of one plan as a DAG: a step starts once every step it
 * depends on has succeeded, at most `limit` at once, in index order among
 * the ready ones (so events arrive in a clear order). A step whose dependency
 * failed never starts; `onBlocked` records it. Each step runs at most once,
 * so the loop is bounded by the number of steps.
 */
export async function runDag(
  count: number,
  dependencies: (index: number) => number[],
  limit: number,
  run: (index: number) => Promise<boolean>,
  onBlocked: (index: number, failedDependency: number) => void,
): Promise<void> {
  const state: ('waiting' | 'running' | 'ok' | 'failed')[] = Array.from({ length: count }, () => 'waiting');
  const running = new Map<number, Promise<void>>();

  const settleBlocked = () => {
    for (let i = 0; i < count; i++) {
      if (state[i] !== 'waiting') continue;
      const failed = dependencies(i).find((d) => state[d] === 'failed');
      if (failed !== undefined) {
        state[i] = 'failed';
        onBlocked(i, failed);
      }
    }
  };

  for (;;) {
    settleBlocked();
    for (let i = 0; i < count && running.size < limit; i++) {
      if (state[i] !== 'waiting' || !dependencies(i).every((d) => state[d] === 'ok')) continue;
      state[i] = 'running';
      running.set(
        i,
        run(i).then(
          (ok) => {
            state[i] = ok ? 'ok' : 'failed';
            running.delete(i);
          },
          (error: unknown) => {
            state[i] = 'failed';
            running.delete(i);
            throw error;
          },
        ),
      );
    }
    if (running.size === 0) return;
    await Promise.race(running.values());
  }
}
