import type { RunState } from '@/lib/run-state';

export type SideName = 'a' | 'b';

/** One side of a comparison: a stored run and the fold of its events. */
export interface CompareSide {
  name: SideName;
  id: string;
  view: RunState;
}
