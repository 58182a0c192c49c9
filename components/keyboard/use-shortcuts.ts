'use client';

import { useEffect, useRef } from 'react';

/** Handlers by `KeyboardEvent.key` (`j`, `]`, `?`). */
export type Shortcuts = Partial<Record<string, () => void>>;

const NOT_TEXT_INPUTS = new Set(['button', 'checkbox', 'color', 'file', 'image', 'radio', 'range', 'reset', 'submit']);

/** Whether a key pressed here is typing: into a text field, a select, or editable content. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !NOT_TEXT_INPUTS.has(target.type);
}

/**
 * Single-key shortcuts for the whole page. They never fire while the person
 * types in a field, with Ctrl, Alt or Meta held (those belong to the browser
 * and the system), or while a modal dialog is open (it has its own keys, and
 * what is behind it is inert).
 */
export function useShortcuts(shortcuts: Shortcuts): void {
  const current = useRef(shortcuts);
  useEffect(() => {
    current.current = shortcuts;
  });
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey || event.isComposing) return;
      if (isTypingTarget(event.target) || document.querySelector('dialog[open]')) return;
      const handler = current.current[event.key];
      if (!handler) return;
      event.preventDefault();
      handler();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}

/**
 * Moves focus to the next (`step` 1) or previous (-1) element matching
 * `selector`, in document order, counting from the one that holds focus or,
 * when none does, from where focus is. Returns the element focused.
 */
export function moveFocus(selector: string, step: 1 | -1): HTMLElement | null {
  const items = [...document.querySelectorAll<HTMLElement>(selector)];
  if (items.length === 0) return null;
  const active = document.activeElement;
  // The innermost item holding focus: a step's item lies inside its round's.
  const at = items.findLastIndex((el) => active !== null && el.contains(active));
  let next: HTMLElement | undefined;
  if (at !== -1) {
    next = items[Math.min(Math.max(at + step, 0), items.length - 1)];
  } else if (active === null || active === document.body) {
    next = step === 1 ? items[0] : items[items.length - 1];
  } else {
    const after = (el: HTMLElement) => Boolean(active.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    next = step === 1 ? (items.find(after) ?? items[items.length - 1]) : ([...items].reverse().find((el) => !after(el)) ?? items[0]);
  }
  if (!next) return null;
  next.focus({ preventScroll: true });
  next.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
  return next;
}

export function prefersReducedMotion(): boolean {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
