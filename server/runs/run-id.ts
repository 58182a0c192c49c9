import { randomBytes } from 'node:crypto';

/** A new run's id, for a started run and an imported one alike. */
export function newRunId(): string {
  // Time first so ids sort by creation; random tail so concurrent starts never collide.
  return `${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`;
}
