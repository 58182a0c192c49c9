import type { EventOf } from '../../lib/events';
import { HumanVerdictRequest, isLocalVerdict, SettleRequest, verdictsOn } from '../../lib/human-verdict';
import { isDisputed } from '../../lib/people-agreement';
import { foldRun, isTerminal, type RunState } from '../../lib/run-state';
import { parseOrRefuse, RequestError } from '../errors';
import type { RunStore } from '../store/run-store';
import type { RunBus } from './bus';
import { RunRecorder } from './recorder';

/** Attempts at appending one verdict when another process took its sequence number first. */
const MAX_ATTEMPTS = 3;

/**
 * Appends people's verdicts, and the settlements of claims they disagree
 * on, to finished runs' logs, through the recorder like every other event:
 * committed with the run's row (its verdict count, who judged it), then
 * published. A run's verdicts are appended one at a time in this
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
    return this.append(runId, 'human_verdict', parseOrRefuse(HumanVerdictRequest, input, 'request'), by, judgeable);
  }

  /** Records `by`'s settlement of a claim people gave different verdicts on (`SettleRequest`); the event as stored. */
  async settle(runId: string, input: unknown, by: string): Promise<EventOf<'verdict_settled'>> {
    return this.append(runId, 'verdict_settled', parseOrRefuse(SettleRequest, input, 'request'), by, (id, state, claim) => {
      judgeable(id, state, claim);
      const verdicts = verdictsOn(state.humanVerdicts, claim).filter(isLocalVerdict);
      if (!isDisputed({ verdicts })) {
        const which = claim === null ? 'the whole answer' : `claim ${claim}`;
        throw new RequestError('claim_not_disputed', `People have not given different verdicts on ${which} of run ${id}: there is nothing to settle.`);
      }
    });
  }

  private append<T extends 'human_verdict' | 'verdict_settled'>(
    runId: string,
    type: T,
    { claim, verdict, note }: { claim: number | null; verdict: EventOf<T>['verdict']; note: string | null },
    by: string,
    check: (runId: string, state: RunState, claim: number | null) => void,
  ): Promise<EventOf<T>> {
    return this.inTurn(runId, async () => {
      if (!(await this.store.getRun(runId))) throw new RequestError('run_not_found', `There is no run ${runId}.`);
      for (let attempt = 1; ; attempt++) {
        const state = foldRun(await this.store.events(runId));
        check(runId, state, claim);
        const recorder = new RunRecorder(runId, this.store, (event) => this.bus.publish(runId, event), state);
        try {
          const event = recorder.emit({ type, claim, verdict, note, by } as Parameters<RunRecorder['emit']>[0]);
          await recorder.flushed();
          return event as EventOf<T>;
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
