/** One line of the key help: the keys, and what they do. */
export interface KeyLine {
  keys: string[];
  does: string;
}

/** Every shortcut the dashboard has, by where it works: what `?` shows. Keep in step with the handlers. */
export const KEY_GROUPS: { title: string; lines: KeyLine[] }[] = [
  {
    title: 'Everywhere',
    lines: [
      { keys: ['?'], does: 'Show these keys' },
      { keys: ['Tab', 'Shift Tab'], does: 'Next / previous control' },
      { keys: ['Esc'], does: 'Close a drawer or a dialog' },
    ],
  },
  {
    title: 'Run page',
    lines: [
      { keys: ['j', 'k'], does: 'Next / previous round or step of the plans' },
      { keys: [']', '['], does: 'Next / previous claim of the answer' },
      { keys: ['Enter'], does: 'On a citation: open the cited lines in the observation viewer and move there' },
      { keys: ['Enter'], does: 'On an LLM call: open its raw prompt and response' },
    ],
  },
  {
    title: 'Runs list',
    lines: [
      { keys: ['↓', '↑'], does: 'Next / previous run' },
      { keys: ['Home', 'End'], does: 'First / last run' },
      { keys: ['Enter'], does: 'Open the run' },
    ],
  },
  {
    title: 'Review queue',
    lines: [
      { keys: ['n', 'p'], does: 'Next / previous run to review' },
      { keys: ['j', 'k'], does: 'Next / previous claim (the whole answer last)' },
      { keys: ['c', 'i', 'u'], does: 'Mark the focused claim correct, incorrect or unsure, then go to the next' },
    ],
  },
  {
    title: 'New run',
    lines: [{ keys: ['Ctrl Enter', '⌘ Enter'], does: 'Start the run (in the task field)' }],
  },
];
