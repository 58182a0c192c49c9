import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MAX_BATCH, RunAppendBatches } from '../../../../server/store/commit-order';

/** Outcome of each append: 'ok' once committed, else the error's message. */
function outcomes(settling: Promise<void>[]): Promise<string[]> {
  return Promise.all(settling.map((p) => p.then(() => 'ok', (error: Error) => error.message)));
}

describe('RunAppendBatches', () => {
  it('commits the appends of one turn together, and those made while a commit is going in the next, in order', async () => {
    const commits: number[][] = [];
    let release!: () => void;
    const batches = new RunAppendBatches<number>(async (_runId, appends) => {
      commits.push([...appends]);
      if (commits.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = [1, 2, 3].map((n) => batches.add('r1', n));
    await nextTurn();
    // The first batch is committing: these wait for it, and go together after it.
    const second = [4, 5].map((n) => batches.add('r1', n));
    await nextTurn();
    expect(commits).toEqual([[1, 2, 3]]);
    release();
    expect(await outcomes([...first, ...second])).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(commits).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('keeps runs apart: one run\'s slow commit does not hold another\'s', async () => {
    const commits: string[] = [];
    let release!: () => void;
    const batches = new RunAppendBatches<number>(async (runId) => {
      commits.push(runId);
      if (runId === 'slow') await new Promise<void>((resolve) => (release = resolve));
    });
    const slow = batches.add('slow', 1);
    await batches.add('fast', 1);
    expect(commits).toEqual(['slow', 'fast']);
    release();
    await slow;
  });

  it('puts at most MAX_BATCH appends in one commit', async () => {
    const sizes: number[] = [];
    const batches = new RunAppendBatches<number>((_runId, appends) => void sizes.push(appends.length));
    await Promise.all(Array.from({ length: MAX_BATCH * 2 + 1 }, (_, n) => batches.add('r1', n)));
    expect(sizes).toEqual([MAX_BATCH, MAX_BATCH, 1]);
  });

  it('rejects every append of a failed batch and refuses those made while it was pending; a run with nothing pending starts afresh', async () => {
    const committed: number[] = [];
    let fail!: (error: Error) => void;
    const batches = new RunAppendBatches<number>(async (_runId, appends) => {
      if (appends.includes(2)) await new Promise<void>((_resolve, reject) => (fail = reject));
      committed.push(...appends);
    });
    const failing = [1, 2].map((n) => batches.add('r1', n));
    await nextTurn();
    const waiting = batches.add('r1', 3);
    fail(new Error('disk full'));
    expect(await outcomes([...failing, waiting])).toEqual(['disk full', 'disk full', expect.stringMatching(/^not committed: an earlier event of run r1 was not \(disk full\)/)]);
    expect(committed).toEqual([]);
    await batches.add('r1', 4);
    expect(committed).toEqual([4]);
  });

  it('is idle once every append has settled, committed or not', async () => {
    const batches = new RunAppendBatches<number>((_runId, appends) => {
      if (appends.includes(2)) throw new Error('refused');
    });
    await batches.idle();
    const settling = [batches.add('r1', 1), batches.add('r2', 2)];
    let idle = false;
    const waited = batches.idle().then(() => (idle = true));
    expect(idle).toBe(false);
    await waited;
    expect(await outcomes(settling)).toEqual(['ok', 'refused']);
  });
});
