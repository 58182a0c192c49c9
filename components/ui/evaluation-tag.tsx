/** Marks a run an evaluation made (`npm run eval`, the Evaluations page), so that it is not taken for one a person started. */
export function EvaluationTag({ evalId }: { evalId: string }) {
  return (
    <span
      data-testid="evaluation-tag"
      title={`Run by evaluation ${evalId}, one of its suite's tasks`}
      className="mt-0.5 inline-block rounded bg-amber-100 px-1 py-px text-[10px] font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-100"
    >
      evaluation
    </span>
  );
}
