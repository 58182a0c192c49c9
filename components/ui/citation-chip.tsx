/** Classes of a citation chip: sky when the Checker found it valid, red otherwise; `clickable` adds the hover tone. */
export function citationChipClass(valid: boolean, clickable = false): string {
  const tone = valid
    ? clickable
      ? 'border-sky-300 bg-sky-50 text-sky-800 hover:bg-sky-100 dark:border-sky-800 dark:bg-sky-950/60 dark:text-sky-200 dark:hover:bg-sky-900'
      : 'border-sky-300 bg-sky-50 text-sky-800 dark:border-sky-800 dark:bg-sky-950/60 dark:text-sky-200'
    : clickable
      ? 'border-red-300 bg-red-50 text-red-800 hover:bg-red-100 dark:border-red-800 dark:bg-red-950/60 dark:text-red-200 dark:hover:bg-red-900'
      : 'border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950/60 dark:text-red-200';
  return `inline-flex max-w-full items-center gap-1 rounded border px-1.5 py-px font-mono text-[11px] ${tone}`;
}
