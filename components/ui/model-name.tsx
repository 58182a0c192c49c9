import { BaselineTag } from './baseline-tag';

/** A run's model name in mono, followed by the offline-baseline tag when it is the baseline; `emphasis` sets it bold. */
export function ModelName({ model, baseline, emphasis = false }: { model: string; baseline: boolean; emphasis?: boolean }) {
  return (
    <>
      <span className={`font-mono break-anywhere ${emphasis ? 'font-semibold' : ''}`}>{model}</span>
      {baseline && (
        <>
          {' '}
          <BaselineTag />
        </>
      )}
    </>
  );
}
