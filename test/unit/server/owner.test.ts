import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { heldHere, holdHere, ownerAlive, releaseHere, thisProcess } from '../../../server/store/owner';

/** A pid no process has (above Linux's pid_max of 2^22). */
const NO_SUCH_PID = 2 ** 22 + 1;

describe('ownerAlive: whether a recorded owner may still be at work', () => {
  const here = os.hostname();

  it('is this process, with a start id of its own, on this host', () => {
    expect(thisProcess()).toEqual({ host: here, pid: process.pid, start: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(thisProcess().start).toBe(thisProcess().start);
  });

  it('trusts a row this process holds, and judges no owner on another host', () => {
    expect(ownerAlive({ host: here, pid: NO_SUCH_PID, start: 's' }, true)).toBe(true);
    expect(ownerAlive({ host: 'another-machine.example', pid: NO_SUCH_PID, start: 's' }, false)).toBe(true);
  });

  it('judges an owner on this host (or one recorded without a host) by its pid', () => {
    expect(ownerAlive({ host: here, pid: NO_SUCH_PID, start: 's' }, false)).toBe(false);
    expect(ownerAlive({ host: null, pid: NO_SUCH_PID, start: null }, false)).toBe(false);
    // The parent of this test process is alive and is not this process.
    expect(ownerAlive({ host: here, pid: process.ppid, start: 's' }, false)).toBe(true);
  });

  it('takes our own pid not held here for an owner that is gone (an earlier process with the same pid), and a missing pid too', () => {
    expect(ownerAlive({ host: here, pid: process.pid, start: 'an-earlier-start' }, false)).toBe(false);
    expect(ownerAlive({ host: here, pid: null, start: null }, false)).toBe(false);
  });

  it('holds a run or an evaluation for this process until released, by kind', () => {
    holdHere('run', 'x');
    expect(heldHere('run', 'x')).toBe(true);
    expect(heldHere('eval', 'x')).toBe(false);
    releaseHere('run', 'x');
    expect(heldHere('run', 'x')).toBe(false);
  });
});
