import Link from 'next/link';
import { aggregateCalls, runDurationMs } from '@/lib/result';
import { attemptsOf, roundLimit, roundNoun } from '@/lib/run-state';
import { formatDuration, formatTimestamp, isoOf } from '../format';
import { Fact } from '../ui/fact';
import { ScrollBox } from '../ui/scroll-box';
import { ModelName } from '../ui/model-name';
import { StatusBadge } from '../ui/status-badge';
import { TokenSplit } from '../ui/token-split';
import type { CompareSide } from './side';
import { SideTag } from './side-tag';

/** One run at a glance, laid out identically on both sides so that the facts line up across the page. */
export function CompareHeader({ side, showTask }: { side: CompareSide; showTask: boolean }) {
  const { view, id, name } = side;
  const llm = aggregateCalls(view.llmCalls);
  const duration = runDurationMs(view);
  const noLlm = view.baseline && llm.promptTokens + llm.evalTokens === 0;
  const files = Object.keys(view.observations).length;

  return (
    <section
      data-testid={`compare-${name}`}
      data-run-id={id}
      data-strategy={view.strategy}
      data-model={view.model}
      aria-label={`Run ${name.toUpperCase()}`}
      className="min-w-0 rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex flex-wrap items-center gap-x-2.5 gap-y-1.5 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <SideTag side={name} />
        <StatusBadge status={view.status} testId={`compare-${name}-status`} />
        <Link href={`/runs/${encodeURIComponent(id)}`} className="link font-mono text-xs" title="Open this run's page">
          {id}
        </Link>
      </div>
      <div className="px-3 pt-2 pb-3">
        {showTask && (
          <ScrollBox className="mb-2 max-h-24" label={`Task of run ${name.toUpperCase()}`}>
            <p className="text-sm leading-snug font-medium whitespace-pre-wrap break-anywhere" data-testid={`compare-${name}-task`}>
              {view.task}
            </p>
          </ScrollBox>
        )}
        <dl className="grid grid-cols-2 gap-x-5 gap-y-1.5 text-xs sm:grid-cols-4">
          <Fact label="Model">
            <ModelName model={view.model || '—'} baseline={view.baseline} />
          </Fact>
          <Fact label="Strategy">
            <span className="font-mono">{view.strategy}</span>
          </Fact>
          <Fact label={roundNoun(view.strategy) === 'turn' ? 'Turns' : 'Rounds'}>
            {attemptsOf(view)}
            {view.limits && <span className="muted"> / {roundLimit(view)} max</span>}
          </Fact>
          <Fact label="Duration">{duration === null ? '—' : formatDuration(duration)}</Fact>
          <Fact label="LLM calls">{noLlm && llm.calls === 0 ? <span className="muted">none (baseline)</span> : llm.calls}</Fact>
          <Fact label="Tokens">
            <TokenSplit baseline={view.baseline} promptTokens={llm.promptTokens} evalTokens={llm.evalTokens} />
          </Fact>
          <Fact label="Files read">{files}</Fact>
          <Fact label="Started">
            <span title={isoOf(view.createdAt)} suppressHydrationWarning>
              {formatTimestamp(view.createdAt)}
            </span>
          </Fact>
        </dl>
        {view.error && (
          <div
            role="status"
            className="mt-2.5 alert"
          >
            <code className="mr-2 font-mono font-semibold">{view.error.code}</code>
            <span className="whitespace-pre-wrap break-anywhere">{view.error.message}</span>
          </div>
        )}
      </div>
    </section>
  );
}
