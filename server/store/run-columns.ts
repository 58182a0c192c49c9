import { z } from 'zod';
import { UnfinishedStatus } from '../../lib/events';
import { NewRun, RunProgress, RunRow } from '../../lib/run-row';
import type { Owner } from './owner';

/** Each field of a run's row and the column that holds it, in every store: the one place the two names meet. */
export const RUN_COLUMNS = {
  id: 'id',
  createdAt: 'created_at',
  task: 'task',
  model: 'model',
  baseline: 'baseline',
  workspace: 'workspace',
  strategy: 'strategy',
  profile: 'profile',
  ownerPid: 'owner_pid',
  ownerHost: 'owner_host',
  ownerStart: 'owner_start',
  importedFrom: 'imported_from',
  importedAt: 'imported_at',
  forkedFromRun: 'forked_from_run',
  forkedFromRound: 'forked_from_round',
  evalId: 'eval_id',
  status: 'status',
  attempts: 'attempts',
  finishedAt: 'finished_at',
  promptTokens: 'prompt_tokens',
  evalTokens: 'eval_tokens',
  errorCode: 'error_code',
  lastSeq: 'last_seq',
  humanVerdicts: 'human_verdicts',
  humanReviewers: 'human_reviewers',
  waitingReason: 'waiting_reason',
  waitingMessage: 'waiting_message',
} as const satisfies Record<keyof RunRow, string>;

/**
 * A row as a store reads it back: the people who judged the run are a JSON list in a text column (SQLite has no
 * arrays, and both stores search it the same way, `reviewQueueConditions`).
 */
export const StoredRow = RunRow.extend({
  humanReviewers: z
    .string()
    .transform((text) => JSON.parse(text) as unknown)
    .pipe(RunRow.shape.humanReviewers),
});

/** A row's (or its progress's) values as its columns hold them: the inverse of `StoredRow`. */
export function columnValues<T extends { humanReviewers: readonly string[] }>(values: T): Omit<T, 'humanReviewers'> & { humanReviewers: string } {
  return { ...values, humanReviewers: JSON.stringify(values.humanReviewers) };
}

/** A whole row, under the row's own field names. */
export const SELECT_RUN = `SELECT ${Object.entries(RUN_COLUMNS)
  .map(([field, column]) => `${column} AS "${field}"`)
  .join(', ')} FROM runs`;

/** Every field of a row, in order: what importing a whole run writes. */
export const ROW_FIELDS = Object.keys(RUN_COLUMNS) as (keyof RunRow)[];

/** What creating a run writes, in order. */
export const NEW_RUN_FIELDS = NewRun.keyof().options;

/** What every append rewrites, in order: the row's cache of the fold. */
export const PROGRESS_FIELDS = RunProgress.keyof().options;

/** The process a row says is working on the run. */
export function ownerOfRun(row: Pick<RunRow, 'ownerHost' | 'ownerPid' | 'ownerStart'>): Owner {
  return { host: row.ownerHost, pid: row.ownerPid, start: row.ownerStart };
}

/** The unfinished statuses as an SQL list, for `status IN (...)`. */
export const UNFINISHED = UnfinishedStatus.options.map((status) => `'${status}'`).join(', ');
