import type { TestDatabase } from '../../test/support/postgres';

/**
 * `count` finished runs inserted into PostgreSQL in one statement (rows
 * only: the list reads nothing else, and their events would be ~20 KB a
 * run), one second apart and ending now, a fiftieth of them failed, with
 * 2,000 distinct tasks. Then ANALYZE, so the planner knows the table's size
 * as it would after a real load. Returns the time it took (ms).
 */
export async function seedRuns(database: TestDatabase, count: number): Promise<number> {
  const started = performance.now();
  const base = Date.now() - count * 1000;
  await database.sql(
    `INSERT INTO runs (id, created_at, task, model, baseline, workspace, strategy, profile, status, attempts, finished_at,
                       prompt_tokens, eval_tokens, error_code, last_seq, owner_host, owner_pid, owner_start)
     SELECT to_hex($1::bigint + g * 1000) || '-' || lpad(to_hex(g), 10, '0'), $1::bigint + g * 1000,
            'How is the model endpoint configured? (#' || (g % 2000) || ')', 'qwen3:8b', false, '/ws', 'plan-execute', 'file',
            CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'completed' END, 1, $1::bigint + g * 1000 + 4000,
            1200, 300, CASE WHEN g % 50 = 0 THEN 'max_rounds_exceeded' END, 24, 'bench', 1, 'seed'
     FROM generate_series(1, $2::int) AS g`,
    [base, count],
  );
  await database.sql('ANALYZE runs');
  return performance.now() - started;
}
