import type { CheckedClaim } from '@/lib/checker';

/** What the Checker flagged on a supported claim (a TODO or plan comment presented as behaviour), under the claim. */
export function ClaimFlagsNote({ claim, testId, className }: { claim: CheckedClaim; testId: string; className: string }) {
  if (!claim.flags?.length) return null;
  return (
    <>
      {claim.flags.map((flag, i) => (
        <p key={i} className={className} data-testid={testId} data-flag={flag.code}>
          <span className="muted">Checker: </span>
          <span className="font-medium text-amber-700 dark:text-amber-300">presents a plan or TODO as fact</span>
          <span className="text-zinc-600 break-anywhere dark:text-zinc-400"> — {flag.message}</span>
        </p>
      ))}
    </>
  );
}
