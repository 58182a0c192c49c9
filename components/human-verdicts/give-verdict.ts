'use client';

import { useCallback, useMemo, useState } from 'react';
import { HumanVerdictResponse } from '@/lib/api';
import type { EventOf } from '@/lib/events';
import type { HumanVerdict } from '@/lib/human-verdict';
import { fetchJson } from '../fetch-json';

/** A verdict to give: on a claim (its number, from 1) or, with `claim` null, on the whole answer. */
export interface VerdictChoice {
  claim: number | null;
  verdict: HumanVerdict;
  note?: string;
}

/**
 * `POST /api/runs/:id/verdicts`; the stored event goes to `onRecorded`, for
 * the page to fold it in as it folds every other event. One at a time; the
 * last refusal is kept to be shown where it was asked.
 */
export function useGiveVerdict(runId: string, onRecorded: (event: EventOf<'human_verdict'>) => void) {
  const [pending, setPending] = useState<number | null | undefined>(undefined);
  const [error, setError] = useState<{ claim: number | null; message: string } | null>(null);

  const give = useCallback(
    async (choice: VerdictChoice): Promise<boolean> => {
      setPending(choice.claim);
      setError(null);
      try {
        const { event } = await fetchJson(`/api/runs/${encodeURIComponent(runId)}/verdicts`, HumanVerdictResponse, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(choice),
        });
        onRecorded(event);
        return true;
      } catch (failure) {
        setError({ claim: choice.claim, message: failure instanceof Error ? failure.message : String(failure) });
        return false;
      } finally {
        setPending(undefined);
      }
    },
    [runId, onRecorded],
  );

  return useMemo(
    () => ({
      give,
      /** Whether a verdict on `claim` is being sent. */
      sending: (claim: number | null) => pending === claim,
      errorOn: (claim: number | null) => (error && error.claim === claim ? error.message : null),
    }),
    [give, pending, error],
  );
}

export type GiveVerdict = ReturnType<typeof useGiveVerdict>;
