'use client';

import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A side drawer on the native modal `<dialog>`: the browser gives focus
 * trapping, Escape to close and the inert background for free.
 */
export function Drawer({
  open,
  onClose,
  title,
  children,
  testId,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      data-testid={testId}
      onClose={onClose}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
      className="fixed inset-y-0 right-0 left-auto m-0 h-dvh max-h-dvh w-[min(64rem,100vw)] max-w-full overflow-hidden border-l border-zinc-300 bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-black/40 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      {open && (
        <div className="flex h-full flex-col">
          <header className="flex items-center gap-3 border-b border-zinc-200 px-4 py-2.5 dark:border-zinc-800">
            <div className="min-w-0 flex-1">{title}</div>
            <button type="button" onClick={onClose} className="btn" autoFocus>
              Close <kbd className="ml-1 font-sans text-[10px] text-zinc-600 dark:text-zinc-300">Esc</kbd>
            </button>
          </header>
          <div className="min-h-0 flex-1 overflow-auto">{children}</div>
        </div>
      )}
    </dialog>
  );
}
