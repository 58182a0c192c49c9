import type { ReadPolicyInfo } from '@/lib/policy';
import { ScrollBox } from '../ui/scroll-box';

/**
 * What no run may read, as configured: the deny-list with each rule's
 * reason (the operator's additions marked), the defaults the configuration
 * removed, and whether the content check withholds files and tool results
 * that hold secrets. Collapsed by default; the summary says how many.
 */
export function ReadPolicyPanel({ policy }: { policy: ReadPolicyInfo }) {
  const added = policy.denyRules.filter((r) => r.source === 'added').length;
  const removed = policy.removedDefaults.length;
  return (
    <section data-testid="read-policy" aria-labelledby="read-policy-title" className="space-y-1.5 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <details>
        <summary className="cursor-pointer text-xs">
          <h2 id="read-policy-title" className="inline text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
            Files runs may never read
          </h2>{' '}
          <span className="text-[11px] muted">
            {policy.denyRules.length} rules{added > 0 ? `, ${added} added` : ''}
            {removed > 0 ? `, ${removed} ${removed === 1 ? 'default' : 'defaults'} removed` : ''}
          </span>
        </summary>
        <p className="mt-1 text-[11px] muted">
          Matched case-insensitively against every folder and file name of a path (at any depth); <code className="font-mono">*</code> is any
          run of characters. Set by <code className="font-mono">PLANSCOPE_DENY_ADD</code> and{' '}
          <code className="font-mono">PLANSCOPE_DENY_REMOVE</code>.
        </p>
        <ScrollBox className="mt-1 max-h-64" label="Deny rules">
          <ul data-testid="deny-rules" className="space-y-0.5 text-xs">
            {policy.denyRules.map((rule) => (
              <li key={rule.pattern} data-source={rule.source} className="flex min-w-0 gap-1.5">
                <code className="shrink-0 font-mono break-anywhere">{rule.pattern}</code>
                <span className="min-w-0 muted">
                  {rule.reason}
                  {rule.source === 'added' ? ' (added)' : ''}
                </span>
              </li>
            ))}
          </ul>
        </ScrollBox>
        {removed > 0 && (
          <p data-testid="removed-defaults" className="mt-1 text-xs text-amber-800 dark:text-amber-300">
            Defaults removed by configuration:{' '}
            {policy.removedDefaults.map((pattern, i) => (
              <span key={pattern}>
                {i > 0 ? ', ' : ''}
                <code className="font-mono break-anywhere">{pattern}</code>
              </span>
            ))}
          </p>
        )}
      </details>
      <p data-testid="secret-scan" className={`text-xs ${policy.secretScan ? 'muted' : 'text-amber-800 dark:text-amber-300'}`}>
        {policy.secretScan ? (
          <>
            Content check on: a file or tool result holding what looks like a private key, token or password is withheld from the model (
            <code className="font-mono">secret_detected</code>).
          </>
        ) : (
          <>
            Content check off (<code className="font-mono">PLANSCOPE_SECRET_SCAN=false</code>): only the file names above are refused.
          </>
        )}
      </p>
    </section>
  );
}
