'use client';

import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import type { ForkRunOutcome } from '@/lib/api';
import type { ErrorInfo } from '@/lib/codes';
import type { Rejection } from '@/lib/events';

export type ForkRefusal = { error: ErrorInfo; rejections: Rejection[] };

/**
 * Starts a fork through the server action and opens it; a refusal (a plan
 * the Validator rejects, a parent that cannot be forked, a request that did
 * not reach the server) is kept to be shown where the fork was asked for.
 */
export function useStartFork(forkRun: (request: unknown) => Promise<ForkRunOutcome>) {
  const router = useRouter();
  const [refusal, setRefusal] = useState<ForkRefusal | null>(null);
  const [pending, startTransition] = useTransition();

  const start = (request: unknown) => {
    setRefusal(null);
    startTransition(async () => {
      let outcome: ForkRunOutcome;
      try {
        outcome = await forkRun(request);
      } catch (thrown) {
        outcome = { ok: false, error: { code: 'request_failed', message: thrown instanceof Error ? thrown.message : String(thrown) }, rejections: [] };
      }
      if (!outcome.ok) {
        setRefusal({ error: outcome.error, rejections: outcome.rejections });
        return;
      }
      const { id } = outcome;
      startTransition(() => router.push(`/runs/${encodeURIComponent(id)}`));
    });
  };

  return { start, pending, refusal };
}
