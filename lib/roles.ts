import { z } from 'zod';
import { Person } from './person';

/**
 * What a person may do, each role all the one before it may and more: a viewer reads everything; a reviewer also
 * gives verdicts and makes evaluation cases; an operator also starts, cancels, forks and replays runs and decides on
 * plans; an admin also imports bundles and manages suites and tokens. The order of the enum is that ladder.
 */
export const Role = z.enum(['viewer', 'reviewer', 'operator', 'admin']);
export type Role = z.infer<typeof Role>;

/** Who a request acts as: the name its token was given, and the role that token carries. */
export const Identity = z.object({ person: Person, role: Role });
export type Identity = z.infer<typeof Identity>;

export function mayAct(role: Role, needed: Role): boolean {
  return Role.options.indexOf(role) >= Role.options.indexOf(needed);
}
