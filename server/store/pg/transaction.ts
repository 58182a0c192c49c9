import type pg from 'pg';

/**
 * `work` on one connection of `pool` inside BEGIN ... COMMIT; rolled back
 * when it throws, and then the connection is closed, not handed to the
 * next caller.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failed = true;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release(failed);
  }
}
