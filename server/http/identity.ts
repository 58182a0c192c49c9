import { headers } from 'next/headers';
import { Identity, mayAct, mayDecidePlans, type Role } from '../../lib/roles';
import { RequestError } from '../errors';
import { PERSON_HEADER, roleRefusal, ROLE_HEADER } from './gate';

/**
 * Who the request being served acts as, as the gate (proxy.ts) set it on the request: a page's, a route's or a
 * server action's. A request that somehow lacks it is a viewer nobody named, which may do nothing.
 */
export async function requestIdentity(): Promise<Identity> {
  const given = await headers();
  const person = given.get(PERSON_HEADER);
  const parsed = Identity.safeParse({ person: person === null ? null : safeDecode(person), role: given.get(ROLE_HEADER) });
  return parsed.success ? parsed.data : { person: 'unknown', role: 'viewer' };
}

/** The identity of a server action's request, refused `role_forbidden` when it is below `needed`. */
export async function requireRole(needed: Role, doing: string): Promise<Identity> {
  const identity = await requestIdentity();
  if (!mayAct(identity.role, needed)) throw new RequestError('role_forbidden', roleRefusal(identity, needed, doing));
  return identity;
}

/** The identity of a request deciding on a plan: an operator or above, and one of the approvers when they are named. */
export async function requireApprover(approvers: readonly string[] | null): Promise<Identity> {
  const identity = await requireRole('operator', 'approving or rejecting plans');
  if (!mayDecidePlans(identity, approvers)) {
    throw new RequestError('not_an_approver', `Only ${approvers!.join(', ')} (PLANSCOPE_APPROVERS) and admins may decide on plans here; ${identity.person} may not.`);
  }
  return identity;
}

/**
 * Whether the request may see the machines behind the server (workers' host names, pids, Ollama URLs and workspace
 * roots): an admin's (PLANSCOPE_TOKEN, an admin's named token, or anyone's when there is no token: loopback only).
 * Every other role sees the rest without them.
 */
export async function seesMachineDetails(): Promise<boolean> {
  return (await requestIdentity()).role === 'admin';
}

function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
