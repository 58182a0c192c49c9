'use client';

import { memo, useState } from 'react';
import type { ObservationView, RoundView } from '@/lib/run-state';
import { formatBytes, formatCount, shortSha } from '../format';
import { CopyButton } from '../ui/copy-button';
import { Panel } from '../ui/panel';
import { FileLines, type LineRange } from './file-lines';
import { observationsInOrder } from './observation-order';
import { useSyntaxLines } from './syntax';
import type { TextHead } from './text-head';
import { artifactUrl, useArtifact } from './use-artifact';

/**
 * What the viewer shows: a file, optionally a line range to highlight;
 * `focus` moves keyboard focus to the range (a citation was followed);
 * `nonce` scrolls to it again on repeat clicks.
 */
export interface ObservationSelection {
  path: string;
  range: LineRange | null;
  focus: boolean;
  nonce: number;
}

/**
 * What the executor actually read, file by file: size, hash, the round that
 * read it, reuse and changes across rounds; and the text itself with line
 * numbers, opened at the lines a citation points to. `head` is the opening
 * text the page was rendered with (of the first file listed), shown until
 * the whole text is here.
 */
export const ObservationViewer = memo(function ObservationViewer({
  runId,
  observations,
  rounds,
  selection,
  onSelect,
  runLive,
  head,
}: {
  runId: string;
  observations: Record<string, ObservationView>;
  rounds: RoundView[];
  selection: ObservationSelection | null;
  onSelect: (path: string, range?: LineRange | null) => void;
  runLive: boolean;
  head: TextHead | null;
}) {
  const list = observationsInOrder(observations);
  const selectedPath = selection?.path ?? list[0]?.path ?? null;
  const selected = selectedPath !== null ? (observations[selectedPath] ?? null) : null;
  const totalBytes = list.reduce((n, o) => n + o.bytes, 0);

  return (
    <Panel
      id="observations"
      title="Observations"
      aside={
        <span>
          {list.length} {list.length === 1 ? 'file' : 'files'} · {formatBytes(totalBytes)}
        </span>
      }
      className="flex h-full min-h-0 flex-col"
      bodyClassName="flex min-h-0 flex-1 flex-col"
    >
      {list.length === 0 ? (
        <p className="px-3 py-3 text-xs muted">
          {runLive ? 'Nothing read yet. Files appear here as the executor reads them through MCP.' : 'No file was read in this run.'}
        </p>
      ) : (
        <ul className="max-h-44 shrink-0 overflow-auto border-b border-zinc-200 dark:border-zinc-800" aria-label="Observed files">
          {list.map((o) => (
            <ObservationRow
              key={o.path}
              observation={o}
              changedSince={changedSinceRound(o, rounds)}
              selected={o.path === selectedPath}
              onSelect={() => onSelect(o.path, null)}
            />
          ))}
        </ul>
      )}

      {selection && !selected && (
        <p className="border-b border-zinc-200 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-zinc-800 dark:bg-amber-950/50 dark:text-amber-200">
          <span className="font-mono break-anywhere">{selection.path}</span> was not observed in this run: a citation of it
          cannot be backed by evidence.
        </p>
      )}

      {selected && (
        <SelectedFile
          runId={runId}
          observation={selected}
          head={head}
          selection={selection?.path === selected.path ? selection : null}
          onClear={() => onSelect(selected.path, null)}
        />
      )}
    </Panel>
  );
});

function ObservationRow({
  observation: o,
  changedSince,
  selected,
  onSelect,
}: {
  observation: ObservationView;
  changedSince: number | null;
  selected: boolean;
  onSelect: () => void;
}) {
  return (
    <li data-testid={`observation-${o.path}`} data-selected={selected || undefined}>
      <button
        type="button"
        onClick={onSelect}
        aria-current={selected ? 'true' : undefined}
        className={`grid w-full grid-cols-[minmax(0,1fr)_auto] gap-x-3 px-3 py-1.5 text-left text-xs hover:bg-zinc-50 dark:hover:bg-zinc-800/60 ${
          selected ? 'bg-sky-50 shadow-[inset_2px_0_0_var(--color-sky-500)] dark:bg-sky-950/40' : ''
        }`}
      >
        <span className="min-w-0 font-mono break-anywhere">{o.path}</span>
        <span className="text-right whitespace-nowrap text-zinc-500 dark:text-zinc-400">
          {formatBytes(o.bytes)} · {o.lines} lines
        </span>
        <span className="col-span-2 mt-0.5 flex flex-wrap gap-x-3 gap-y-0.5 text-[11px] text-zinc-500 dark:text-zinc-400">
          <span title={`sha256 ${o.sha256}`} className="font-mono">
            {shortSha(o.sha256)}
          </span>
          <span>{o.carriedFrom ? `read by the parent run in its round ${o.round}` : `read in round ${o.round}`}</span>
          {o.reusedInRounds.length > 0 && (
            <span className="text-violet-700 dark:text-violet-300">reused in round {o.reusedInRounds.join(', ')}</span>
          )}
          {o.previousSha256.length > 0 && (
            <span
              className="text-amber-700 dark:text-amber-300"
              title={`earlier content: ${o.previousSha256.join(', ')}`}
            >
              {changedSince !== null ? `changed since round ${changedSince}` : 'changed since an earlier read'}
            </span>
          )}
        </span>
      </button>
    </li>
  );
}

function SelectedFile({
  runId,
  observation,
  head,
  selection,
  onClear,
}: {
  runId: string;
  observation: ObservationView;
  head: TextHead | null;
  selection: ObservationSelection | null;
  onClear: () => void;
}) {
  const [wrap, setWrap] = useState(false);
  // The citation whose lines already took focus: toggling wrap or more text arriving must not take it again.
  const [focusServed, setFocusServed] = useState<number | null>(null);
  const text = useArtifact(runId, observation.artifact, head);
  const syntax = useSyntaxLines(observation.artifact, observation.path, text.isPlaceholderData ? undefined : text.data);
  const range = selection?.range ?? null;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 px-3 py-1.5 text-xs dark:border-zinc-800">
        <span className="min-w-0 font-mono font-medium break-anywhere">{observation.path}</span>
        {range && (
          <span className="rounded bg-amber-100 px-1.5 py-px font-mono text-[11px] text-amber-900 dark:bg-amber-900/60 dark:text-amber-100">
            L{range.startLine}
            {range.endLine !== range.startLine && `–L${range.endLine}`}
            <button type="button" className="ml-1.5 underline" onClick={onClear} aria-label="Clear the highlighted lines">
              clear
            </button>
          </span>
        )}
        {text.isPlaceholderData && (
          <span className="text-[11px] muted" data-testid="observation-loading-rest">
            first lines · loading all {formatCount(observation.lines)} lines ({formatBytes(observation.bytes)})…
          </span>
        )}
        <div className="ml-auto flex items-center gap-2">
          <label className="flex cursor-pointer items-center gap-1 text-[11px] muted">
            <input type="checkbox" checked={wrap} onChange={(e) => setWrap(e.target.checked)} className="accent-sky-600" />
            wrap
          </label>
          <CopyButton text={observation.sha256} label={`sha256 ${shortSha(observation.sha256, 8)}…`} title={`Copy sha256 ${observation.sha256}`} />
          <a className="btn" href={artifactUrl(runId, observation.artifact)} target="_blank" rel="noreferrer">
            Raw
          </a>
        </div>
      </div>
      <div className="min-h-[18rem] flex-1">
        {text.isPending ? (
          <p className="px-3 py-3 text-xs muted">Loading {formatBytes(observation.bytes)}…</p>
        ) : text.error ? (
          <p role="alert" className="px-3 py-3 text-xs text-red-700 dark:text-red-300">
            Could not load the observed text: {text.error.message}
          </p>
        ) : (
          <FileLines
            key={wrap ? 'wrap' : 'nowrap'}
            text={text.data}
            syntax={syntax}
            highlight={range}
            focusKey={selection?.nonce ?? 0}
            takeFocus={selection !== null && selection.focus && selection.nonce !== focusServed}
            onFocusTaken={() => setFocusServed(selection?.nonce ?? null)}
            wrap={wrap}
            label={`Contents of ${observation.path} as observed`}
            totalLines={observation.lines}
          />
        )}
      </div>
    </div>
  );
}

/** The earliest round whose read of this path had content the file has since changed from. */
function changedSinceRound(o: ObservationView, rounds: RoundView[]): number | null {
  if (o.previousSha256.length === 0) return null;
  const earlier = new Set(o.previousSha256);
  for (const round of rounds) {
    if (round.steps.some((s) => s.path === o.path && s.sha256 !== null && earlier.has(s.sha256))) return round.round;
  }
  return null;
}
