import type { Role } from '../../../lib/roles';
import { RequestError } from '../../errors';
import { LAST_USED_RESOLUTION_MS, newTokenSecret, sameHash, tokenHash, toNamedToken, type NamedToken, type TokenRow, type TokenStore } from '../token-store';
import type { PgDatabase } from './database';

const COLUMNS = 'id, name, role, created_at, last_used_at';

/** Named tokens in PostgreSQL. */
export class PgTokenStore implements TokenStore {
  constructor(private readonly db: PgDatabase) {}

  async create(name: string, role: Role): Promise<{ token: NamedToken; secret: string }> {
    const { id, secret, hash } = newTokenSecret();
    const createdAt = Date.now();
    const inserted = await this.db.query('INSERT INTO tokens (id, name, role, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING RETURNING id', [id, name, role, hash, createdAt]);
    if (inserted.length === 0) throw new RequestError('token_name_taken', `A token named ${name} exists already; revoke it first, or choose another name.`);
    return { token: toNamedToken({ id, name, role, created_at: createdAt, last_used_at: null }), secret };
  }

  async list(): Promise<NamedToken[]> {
    return (await this.db.query<TokenRow & Record<string, unknown>>(`SELECT ${COLUMNS} FROM tokens ORDER BY name`)).map(toNamedToken);
  }

  async revoke(nameOrId: string): Promise<NamedToken | null> {
    const [row] = await this.db.query<TokenRow & Record<string, unknown>>(`DELETE FROM tokens WHERE id = $1 OR name = $1 RETURNING ${COLUMNS}`, [nameOrId]);
    return row ? toNamedToken(row) : null;
  }

  async identify(secret: string, now = Date.now()): Promise<NamedToken | null> {
    const [row] = await this.db.query<TokenRow & { secret_hash: string }>(`SELECT ${COLUMNS}, secret_hash FROM tokens WHERE secret_hash = $1`, [tokenHash(secret)]);
    if (!row || !sameHash(row.secret_hash, secret)) return null;
    if (row.last_used_at === null || row.last_used_at <= now - LAST_USED_RESOLUTION_MS) {
      await this.db.query('UPDATE tokens SET last_used_at = $1 WHERE id = $2', [now, row.id]);
      row.last_used_at = now;
    }
    return toNamedToken(row);
  }
}
