import type { ErrorCode, RunErrorCode } from '../../lib/codes';
import type { EvalRecord, EvalSettings } from '../../lib/eval';
import type { Owner } from './owner';

/** An evaluation's row as both stores keep it. */
export interface StoredEval {
  id: string;
  created_at: number;
  suite: string;
  settings: string;
  status: EvalRecord['status'];
  finished_at: number | null;
  owner_pid: number | null;
  owner_host: string | null;
  owner_start: string | null;
  error_code: ErrorCode | null;
  error_message: string | null;
}

export function toEvalRecord(row: StoredEval): Omit<EvalRecord, 'items'> {
  return {
    id: row.id,
    createdAt: row.created_at,
    suite: row.suite,
    settings: JSON.parse(row.settings) as EvalSettings,
    status: row.status,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    finishedAt: row.finished_at,
  };
}

export function ownerOfEval(row: StoredEval): Owner {
  return { host: row.owner_host, pid: row.owner_pid, start: row.owner_start };
}

/** How an evaluation whose process is gone is finished: `interrupted`, saying how many runs it stored. */
export function orphanedEvalError(row: StoredEval, stored: number): { code: RunErrorCode; message: string } {
  const who =
    row.owner_pid === null
      ? 'The process running this evaluation was not recorded (it predates owner tracking)'
      : `The process running this evaluation (pid ${row.owner_pid}) is gone`;
  return { code: 'interrupted', message: `${who}, so it was never finished. Runs stored: ${stored}.` };
}
