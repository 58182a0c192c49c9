import type { EventOf } from '../../lib/events';
import { HumanVerdictRequest } from '../../lib/human-verdict';
import { foldRun, isTerminal, type RunState } from '../../lib/run-state';
import { parseOrRefuse, RequestError } from '../errors';
import type { RunStore } from '../store/run-store';
import type { RunBus } from './bus';
import { RunRecorder } from './recorder';

/** Attempts at appending one verdict when another process took its sequence number first. */
const MAX_ATTEMPTS = 3;

/**
 * Appends people's verdicts to finished runs' logs, through the recorder
 * like every other event: committed with the run's row (its verdict count),
 * then published. A run's verdicts are appended one at a time in this
 * process; another process appending to the same run at the same moment
 * takes a sequence number first, and the verdict is tried again from the
 * log as it then is, a bounded number of times.
 */
export class HumanVerdictLog {
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: RunStore,
    private readonly bus: RunBus,
  ) {}

  /** Records `by`'s verdict as `input` asks (`HumanVerdictRequest`); the event as stored. */
  async record(runId: string, input: unknown, by: string): Promise<EventOf<'human_verdict'>> {
    const { claim, verdict, note } = parseOrRefuse(HumanVerdictRequest, input, 'request');
    if (!(await this.store.getRun(runId))) throw new RequestError('run_not_found', `There is no run ${runId}.`);
    return this.inTurn(runId, async () => {
      for (let attempt = 1; ; attempt++) {
        const state = foldRun(await this.store.events(runId));
        judgeable(runId, state, claim);
        const recorder = new RunRecorder(runId, this.store, (event) => this.bus.publish(runId, event), state);
        try {
          const event = recorder.emit({ type: 'human_verdict', claim, verdict, note, by });
          await recorder.flushed();
          return event as EventOf<'human_verdict'>;
        } catch (error) {
          if (attempt >= MAX_ATTEMPTS) throw error;
        }
      }
    });
  }

  private inTurn<T>(runId: string, work: () => Promise<T>): Promise<T> {
    const before = this.turns.get(runId) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(work);
    const tail = mine.catch(() => {});
    this.turns.set(runId, tail);
    void tail.then(() => {
      if (this.turns.get(runId) === tail) this.turns.delete(runId);
    });
    return mine;
  }
}

/** A verdict needs a run that has ended, and an answer with that claim. */
function judgeable(runId: string, state: RunState, claim: number | null): void {
  if (!isTerminal(state.status)) {
    throw new RequestError('run_not_finished', `Run ${runId} is ${state.status}; verdicts are given on a run once it has ended.`);
  }
  if (state.answer === null) throw new RequestError('invalid_request', `Run ${runId} has no answer to judge.`);
  const claims = state.check?.claims.length ?? 0;
  if (claim !== null && claim > claims) {
    throw new RequestError('invalid_request', `claim: run ${runId}'s answer has ${claims} claim${claims === 1 ? '' : 's'}; there is no claim ${claim}.`);
  }
}
