import type { RunFilter } from '../../lib/run-filter';
import { SELECT_RUN } from './run-columns';
import type { ListRunsOptions } from './run-store';

export type SqlDialect = 'sqlite' | 'postgres';

/**
 * The runs list's page query, as both stores make it: newest first (by
 * creation time, then id), after the cursor, narrowed by the filter. Every
 * value is a parameter; the dialects differ only in how parameters are
 * written and in how a task is searched case-insensitively.
 */
export function runListQuery(options: ListRunsOptions, dialect: SqlDialect): { sql: string; params: (string | number)[] } {
  const params: (string | number)[] = [];
  const param = (value: string | number) => {
    params.push(value);
    return dialect === 'sqlite' ? '?' : `$${params.length}`;
  };
  const where: string[] = [];
  if (options.before) where.push(`(created_at, id) < (${param(options.before.createdAt)}, ${param(options.before.id)})`);
  if (options.task !== undefined) where.push(`task = ${param(options.task)}`);
  if (options.forkedFrom !== undefined) where.push(`forked_from_run = ${param(options.forkedFrom)}`);
  where.push(...filterConditions(options.filter ?? {}, param, dialect));
  if (options.reviewQueue) where.push(...reviewQueueConditions(options.reviewQueue, param, dialect));
  const sql = `${SELECT_RUN} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT ${param(options.limit)}`;
  return { sql, params };
}

/** The column of who judged a run is a JSON list (run-columns.ts): its length and its members, in each dialect. */
function reviewQueueConditions({ person, reviewers }: { person: string; reviewers: number }, param: (value: string | number) => string, dialect: SqlDialect): string[] {
  if (dialect === 'sqlite') {
    return [
      `status = 'completed'`,
      `json_array_length(human_reviewers) < ${param(reviewers)}`,
      `NOT EXISTS (SELECT 1 FROM json_each(runs.human_reviewers) WHERE value = ${param(person)})`,
    ];
  }
  return [`status = 'completed'`, `jsonb_array_length(human_reviewers::jsonb) < ${param(reviewers)}`, `NOT (human_reviewers::jsonb ? ${param(person)})`];
}

function filterConditions(filter: RunFilter, param: (value: string) => string, dialect: SqlDialect): string[] {
  const where: string[] = [];
  if (filter.status !== undefined) where.push(`status = ${param(filter.status)}`);
  if (filter.model !== undefined) where.push(`model = ${param(filter.model)}`);
  if (filter.strategy !== undefined) where.push(`strategy = ${param(filter.strategy)}`);
  if (filter.profile !== undefined) where.push(`profile = ${param(filter.profile)}`);
  if (filter.error !== undefined) where.push(`error_code = ${param(filter.error)}`);
  // Spelled as the partial index on judged runs is, so that the query can use it.
  if (filter.review === 'judged') where.push('human_verdicts > 0');
  if (filter.review === 'needs_review') where.push(`status = 'completed' AND human_verdicts = 0`);
  // Spelled as the partial index on evaluations' runs is, so that the query can use it.
  if (filter.origin === 'evaluation') where.push('eval_id IS NOT NULL');
  if (filter.origin === 'direct') where.push('eval_id IS NULL');
  if (filter.q !== undefined) {
    // The case of every letter is ignored: PostgreSQL's ILIKE does so, SQLite's LIKE only for ASCII, hence fold_case (server/store/sqlite/db.ts).
    const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(dialect === 'sqlite' ? `fold_case(task) LIKE fold_case(${param(pattern)}) ESCAPE '\\'` : `task ILIKE ${param(pattern)} ESCAPE '\\'`);
  }
  return where;
}
