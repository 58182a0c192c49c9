'use client';

import { useEffect, useState } from 'react';

/** Copies text to the clipboard and says so for a moment. */
export function CopyButton({
  text,
  label = 'Copy',
  title,
  className = '',
}: {
  text: string | (() => string);
  label?: string;
  title?: string;
  className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = () => {
    const value = typeof text === 'function' ? text() : text;
    navigator.clipboard.writeText(value).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };

  return (
    <button type="button" onClick={copy} title={title} className={`btn ${className}`}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}</span>
    </button>
  );
}
