import readline from 'node:readline';
import type { RunEvent } from '../../lib/events';
import { LOCAL_PERSON } from '../../lib/person';
import type { EventFeed } from '../runs/feed';
import type { RunRegistry } from '../runs/registry';
import { printable } from './terminal-text';

/**
 * `run --approve` in text mode: each plan the run waits on is asked about on
 * the terminal (approve, or reject with a note for the planner) and the
 * answer recorded as decided by `local`. Input that ends with a plan still
 * waiting cancels the run: nobody is left to decide. Returns an unsubscribe.
 */
export function approveOnTerminal(
  registry: Pick<RunRegistry, 'decide' | 'cancelElsewhere'>,
  /** The run's events, wherever it runs. */
  bus: Pick<EventFeed, 'subscribe'>,
  id: string,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
): () => void {
  const terminal = readline.createInterface({ input: io.input, terminal: false });
  // Lines typed ahead of a question are kept for it.
  const lines = terminal[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string | null> => {
    io.output.write(question);
    const line = await lines.next();
    return line.done ? null : line.value.trim();
  };
  let asking = Promise.resolve();
  const decideOn = async (e: Extract<RunEvent, { type: 'approval_requested' }>) => {
    for (;;) {
      const answer = await ask(`?    approve the plan of round ${e.round}? [a]pprove, [r]eject with a note: `);
      if (answer === null) {
        io.output.write('     no answer (the input ended): cancelling the run\n');
        void registry.cancelElsewhere(id);
        return;
      }
      const choice = answer.toLowerCase();
      if (choice !== 'a' && choice !== 'approve' && choice !== 'r' && choice !== 'reject') continue;
      const note = choice.startsWith('r') ? await ask('     note for the planner: ') : null;
      if (choice.startsWith('r') && !note) continue;
      try {
        await registry.decide(id, note ? { request: e.request, decision: 'reject', note } : { request: e.request, decision: 'approve' }, LOCAL_PERSON);
        return;
      } catch (error) {
        io.output.write(`     ${printable((error as Error).message)}\n`);
        return;
      }
    }
  };
  const unsubscribe = bus.subscribe(id, (event) => {
    if (event.type === 'approval_requested') asking = asking.then(() => decideOn(event));
  });
  return () => {
    unsubscribe();
    terminal.close();
  };
}
