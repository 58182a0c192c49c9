import { maskHost } from '../../lib/mask';
import { ConfigError } from '../errors';
import { urlScheme } from './url-scheme';

/**
 * `PLANSCOPE_DATABASE_URL` must be a PostgreSQL URL; the rest of it (host,
 * socket, options) is the driver's to read. A mistyped scheme is refused
 * here, with the credentials masked, rather than at the first connection.
 */
export function checkDatabaseUrl(raw: string): string {
  if (!['postgres:', 'postgresql:'].includes(urlScheme(raw) ?? '')) {
    throw new ConfigError(
      `Invalid configuration: PLANSCOPE_DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database), not ${maskHost(raw)}; unset it to keep the SQLite file in PLANSCOPE_DATA_DIR.`,
    );
  }
  return raw;
}
