import type Database from 'better-sqlite3';
import type { Role } from '../../../lib/roles';
import { RequestError } from '../../errors';
import { LAST_USED_RESOLUTION_MS, newTokenSecret, sameHash, tokenHash, toNamedToken, type NamedToken, type TokenRow, type TokenStore } from '../token-store';

const COLUMNS = 'id, name, role, created_at, last_used_at';

/** Named tokens in the SQLite database. */
export class SqliteTokenStore implements TokenStore {
  constructor(private readonly db: Database.Database) {}

  async create(name: string, role: Role): Promise<{ token: NamedToken; secret: string }> {
    const { id, secret, hash } = newTokenSecret();
    const createdAt = Date.now();
    const inserted = this.db.prepare('INSERT INTO tokens (id, name, role, secret_hash, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING').run(id, name, role, hash, createdAt);
    if (inserted.changes === 0) throw new RequestError('token_name_taken', `A token named ${name} exists already; revoke it first, or choose another name.`);
    return { token: toNamedToken({ id, name, role, created_at: createdAt, last_used_at: null }), secret };
  }

  async list(): Promise<NamedToken[]> {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM tokens ORDER BY name`).all() as TokenRow[]).map(toNamedToken);
  }

  async revoke(nameOrId: string): Promise<NamedToken | null> {
    const row = this.db.prepare(`DELETE FROM tokens WHERE id = ? OR name = ? RETURNING ${COLUMNS}`).get(nameOrId, nameOrId) as TokenRow | undefined;
    return row ? toNamedToken(row) : null;
  }

  async identify(secret: string, now = Date.now()): Promise<NamedToken | null> {
    const row = this.db.prepare(`SELECT ${COLUMNS}, secret_hash FROM tokens WHERE secret_hash = ?`).get(tokenHash(secret)) as (TokenRow & { secret_hash: string }) | undefined;
    if (!row || !sameHash(row.secret_hash, secret)) return null;
    if (row.last_used_at === null || row.last_used_at <= now - LAST_USED_RESOLUTION_MS) {
      this.db.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(now, row.id);
      row.last_used_at = now;
    }
    return toNamedToken(row);
  }
}
