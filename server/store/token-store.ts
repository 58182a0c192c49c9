import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Person } from '../../lib/person';
import { Role } from '../../lib/roles';

/**
 * The named tokens people and machines are given (`planscope token create`), each with its role. Only the
 * SHA-256 of a token is stored: the token is 32 random bytes, too many to guess, so a fast hash is enough and
 * the store, read by anyone, names no token that works. A lookup finds the row by that hash and compares it
 * again in constant time.
 */
export const NamedToken = z.object({
  id: z.string(),
  name: Person,
  role: Role,
  createdAt: z.number(),
  /** When a request last carried it (to the minute: a busy token is not written at every request); null if never. */
  lastUsedAt: z.number().nullable(),
});
export type NamedToken = z.infer<typeof NamedToken>;

export interface TokenStore {
  /** Stores a new token; `secret` is the token itself, shown once and kept nowhere. Throws `token_name_taken`. */
  create(name: string, role: Role): Promise<{ token: NamedToken; secret: string }>;
  list(): Promise<NamedToken[]>;
  /** Removes the token of that id or name; null when there is none. */
  revoke(nameOrId: string): Promise<NamedToken | null>;
  /** The token a request presented, with its last use recorded; null for a secret no stored token has. */
  identify(secret: string, now?: number): Promise<NamedToken | null>;
}

/** A token's last use is written at most this often: a token's every request would otherwise be a write. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Every named token starts so: a person reading a leaked string can tell what it is, and the gate where to look. */
export const NAMED_TOKEN_PREFIX = 'pst_';

export function newTokenSecret(): { id: string; secret: string; hash: string } {
  const secret = `${NAMED_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { id: `tok_${randomBytes(6).toString('hex')}`, secret, hash: tokenHash(secret) };
}

export function tokenHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The stored hash against the presented secret's, in constant time (both are 64 hex digits). */
export function sameHash(stored: string, secret: string): boolean {
  const given = Buffer.from(tokenHash(secret), 'hex');
  const kept = Buffer.from(stored, 'hex');
  return kept.length === given.length && timingSafeEqual(kept, given);
}

export interface TokenRow {
  id: string;
  name: string;
  role: string;
  created_at: number;
  last_used_at: number | null;
}

export function toNamedToken(row: TokenRow): NamedToken {
  return NamedToken.parse({ id: row.id, name: row.name, role: row.role, createdAt: row.created_at, lastUsedAt: row.last_used_at });
}
