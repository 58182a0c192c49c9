import type { RunImport } from '@/lib/bundle';
import { formatTimestamp, isoOf } from '../format';

/** Marks a run imported from a bundle, saying from where and when (the bundle's own words, shown as text). */
export function ImportedTag({ imported }: { imported: RunImport }) {
  return (
    <span
      data-testid="imported-tag"
      title={`Imported${imported.by === undefined ? '' : ` by ${imported.by}`} on ${isoOf(imported.at) ?? ''}, from ${imported.from}`}
      className="mt-0.5 inline-block rounded bg-teal-100 px-1 py-px text-[10px] font-medium text-teal-900 dark:bg-teal-950 dark:text-teal-100"
    >
      imported {formatTimestamp(imported.at).slice(5, 16)}
    </span>
  );
}
