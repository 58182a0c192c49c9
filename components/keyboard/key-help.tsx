'use client';

import { useEffect, useRef, useState } from 'react';
import { KEY_GROUPS } from './key-list';
import { useShortcuts } from './use-shortcuts';

/**
 * The `?` button in the header and the dialog it opens, listing every key.
 * A native modal `<dialog>`: focus stays inside, the page behind is inert,
 * Esc closes it; focus then goes back where it was.
 */
export function KeyHelp() {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);

  useShortcuts({ '?': () => setOpen(true) });

  useEffect(() => {
    const node = dialog.current;
    if (!node) return;
    if (open && !node.open) {
      returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      node.showModal();
    }
    if (!open && node.open) node.close();
  }, [open]);

  const onClose = () => {
    setOpen(false);
    returnTo.current?.focus();
    returnTo.current = null;
  };

  return (
    <>
      <button
        type="button"
        className="btn w-7 px-0"
        onClick={() => setOpen(true)}
        aria-keyshortcuts="?"
        aria-haspopup="dialog"
        title="Keyboard shortcuts (?)"
        data-testid="key-help-button"
      >
        <span aria-hidden>?</span>
        <span className="sr-only">Keyboard shortcuts</span>
      </button>
      <dialog
        ref={dialog}
        onClose={onClose}
        onClick={(e) => {
          if (e.target === e.currentTarget) setOpen(false);
        }}
        aria-labelledby="key-help-title"
        data-testid="key-help"
        className="m-auto w-[min(34rem,calc(100vw-2rem))] rounded-md border border-zinc-300 bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-black/40 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      >
        {open && (
          <div className="max-h-[80dvh] overflow-auto">
            <div className="sticky top-0 flex items-center gap-3 border-b border-zinc-200 bg-white px-4 py-2.5 dark:border-zinc-800 dark:bg-zinc-900">
              <h2 id="key-help-title" className="flex-1 text-sm font-semibold">
                Keyboard shortcuts
              </h2>
              <button type="button" onClick={() => setOpen(false)} className="btn" autoFocus>
                Close <kbd className="ml-1 font-sans text-[10px] text-zinc-600 dark:text-zinc-300">Esc</kbd>
              </button>
            </div>
            <div className="space-y-4 px-4 py-3">
              <p className="text-xs muted">Single keys never act while you type in a field.</p>
              {KEY_GROUPS.map((group, i) => (
                <section key={group.title} aria-labelledby={`key-group-${i}`}>
                  <h3 id={`key-group-${i}`} className="mb-1 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
                    {group.title}
                  </h3>
                  <dl className="grid grid-cols-[minmax(7rem,auto)_1fr] gap-x-4 gap-y-1 text-xs">
                    {group.lines.map((line) => (
                      <div key={line.does} className="contents">
                        <dt className="flex flex-wrap gap-1">
                          {line.keys.map((k) => (
                            <kbd key={k} className="kbd">
                              {k}
                            </kbd>
                          ))}
                        </dt>
                        <dd>{line.does}</dd>
                      </div>
                    ))}
                  </dl>
                </section>
              ))}
            </div>
          </div>
        )}
      </dialog>
    </>
  );
}
