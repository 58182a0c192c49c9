/** Marks the built-in offline baseline wherever a model name appears. */
export function BaselineTag() {
  return (
    <span
      title="The built-in deterministic planner and answerer; no LLM is called."
      className="mt-0.5 inline-block rounded bg-violet-100 px-1 py-px text-[10px] font-medium text-violet-800 dark:bg-violet-950 dark:text-violet-200"
    >
      offline baseline
    </span>
  );
}
