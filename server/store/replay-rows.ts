import { ReplayRecord } from '../../lib/replay';

/** A replay's row as both stores keep it: the columns it is found and ordered by, and the record as JSON text. */
export interface StoredReplay {
  id: string;
  run_id: string;
  call: string;
  created_at: number;
  batch: string;
  attempt: number;
  status: string;
  body: string;
}

export function toStoredReplay(replay: ReplayRecord): StoredReplay {
  const record = ReplayRecord.parse(replay);
  return {
    id: record.id,
    run_id: record.runId,
    call: record.call,
    created_at: record.createdAt,
    batch: record.batch,
    attempt: record.attempt,
    status: record.status,
    body: JSON.stringify(record),
  };
}

export function toReplayRecord(row: Pick<StoredReplay, 'body'>): ReplayRecord {
  return ReplayRecord.parse(JSON.parse(row.body));
}

export const REPLAY_COLUMNS = ['id', 'run_id', 'call', 'created_at', 'batch', 'attempt', 'status', 'body'] as const;
