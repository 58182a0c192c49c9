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

/**
 * Whether this person may decide on plans: an operator or above, and, when `approvers` (PLANSCOPE_APPROVERS) names
 * who may, one of them. An admin may always: they could make themselves a token that is.
 */
export function mayDecidePlans(identity: Identity, approvers: readonly string[] | null): boolean {
  if (!mayAct(identity.role, 'operator')) return false;
  return approvers === null || identity.role === 'admin' || approvers.includes(identity.person);
}
