'use client';

import { createContext, useContext, type ReactNode } from 'react';
import { LOCAL_PERSON } from '@/lib/person';
import { mayAct, type Identity, type Role } from '@/lib/roles';

/** Who the page is shown to, as the gate identified the request: what they may not do is not offered. */
const IdentityContext = createContext<Identity>({ person: LOCAL_PERSON, role: 'admin' });

export function IdentityProvider({ identity, children }: { identity: Identity; children: ReactNode }) {
  return <IdentityContext.Provider value={identity}>{children}</IdentityContext.Provider>;
}

/** Whether the person looking may do what `needed` may (the server checks it again). */
export function useMay(needed: Role): boolean {
  return mayAct(useContext(IdentityContext).role, needed);
}
