import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { processAlive } from '../process';

/**
 * Runs and evaluations record the process working on them, so one left
 * unfinished by a process that died can be told from one still in progress
 * in another process (a CLI run beside the server, another dashboard on the
 * same database).
 *
 * A pid names a process only on its own machine and only while it lives, so
 * an owner is recorded as the host's name, the pid, and a random id the
 * process takes when it starts (`start`): together they name one process
 * anywhere. Liveness is judged only for owners on this host (by pid); an
 * owner on another host cannot be probed from here and is not guessed at.
 * Judging those belongs to a lease or heartbeat that the owner renews, which
 * the start id is there to key.
 */
export interface Owner {
  host: string | null;
  pid: number | null;
  start: string | null;
}

interface Ownership {
  self: { host: string; pid: number; start: string };
  /** `<kind>:<id>` of every run and evaluation this process is working on now. */
  held: Set<string>;
}

export type OwnedKind = 'run' | 'eval';

/**
 * Kept on `globalThis`: Next.js gives server actions and route handlers
 * their own module instances, and ownership belongs to the process, not to
 * a module instance or to one of several runtimes in it.
 */
const holder = globalThis as typeof globalThis & { __planscopeOwnership?: Ownership };

function ownership(): Ownership {
  holder.__planscopeOwnership ??= { self: { host: os.hostname(), pid: process.pid, start: randomUUID() }, held: new Set() };
  return holder.__planscopeOwnership;
}

/** An owner with every part known: this process, or one runtime in it. */
export type KnownOwner = { host: string; pid: number; start: string };

/** This process as the owner of what it records. */
export function thisProcess(): KnownOwner {
  return ownership().self;
}

/**
 * One runtime of this process as the owner of the runs it records and the
 * worker it registers: this host and pid, with an id of its own. Two
 * runtimes in one process (a dashboard's and a test's, a CLI's starter and
 * its worker) are two workers, each owning its own runs.
 */
export function runtimeOwner(): KnownOwner {
  const { host, pid } = ownership().self;
  return { host, pid, start: randomUUID() };
}

/** This process is working on it until `releaseHere`: no reader in this process takes it for an orphan. */
export function holdHere(kind: OwnedKind, id: string): void {
  ownership().held.add(`${kind}:${id}`);
}

export function releaseHere(kind: OwnedKind, id: string): void {
  ownership().held.delete(`${kind}:${id}`);
}

export function heldHere(kind: OwnedKind, id: string): boolean {
  return ownership().held.has(`${kind}:${id}`);
}

/**
 * Whether a recorded owner may still be at work. `held` says whether this
 * process holds the row live. A row under OUR pid that we do not hold was
 * left by an earlier process that had the same pid (a container restarted:
 * the server is pid 1, or the same small number, every time), or by this
 * one, which stopped working on it. A null pid was recorded before owners
 * were, and cannot be checked.
 */
export function ownerAlive(owner: Owner, held: boolean): boolean {
  if (held) return true;
  const self = thisProcess();
  if (owner.host !== null && owner.host !== self.host) return true;
  if (owner.pid === null || owner.pid === self.pid) return false;
  return processAlive(owner.pid);
}

