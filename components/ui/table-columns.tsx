import type { ReactNode } from 'react';

/** One column of a data table: its header, and optionally its width class, numeric alignment and tooltip. */
export interface Column {
  label: ReactNode;
  /** A Tailwind width class for the `<col>`; a column without one takes the rest. */
  width?: string;
  /** Right-aligned numbers. */
  num?: boolean;
  title?: string;
  /** The label is for screen readers only (a column of buttons or links). */
  srOnly?: boolean;
}

/**
 * A table's `<colgroup>` (when any column sets a width) and its header row,
 * from one list of columns, so the widths and the headers cannot drift apart.
 */
export function TableColumns({ columns }: { columns: readonly Column[] }) {
  return (
    <>
      {columns.some((c) => c.width !== undefined) && (
        <colgroup>
          {columns.map((c, i) => (
            <col key={i} className={c.width} />
          ))}
        </colgroup>
      )}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} className={c.num ? 'th num' : 'th'} title={c.title}>
              {c.srOnly ? <span className="sr-only">{c.label}</span> : c.label}
            </th>
          ))}
        </tr>
      </thead>
    </>
  );
}
