'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchText } from '../fetch-json';
import type { TextHead } from './text-head';

/** Artifact names hold `/` (`observation/<sha>/src/a.ts`): each segment is encoded on its own. */
export function artifactUrl(runId: string, name: string): string {
  return `/api/runs/${encodeURIComponent(runId)}/artifacts/${name.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The raw text of one artifact. Artifacts never change once written, so a
 * fetched one is never refetched. With the `head` the page was rendered with
 * (when it is this artifact's): a complete head is the text, no fetch at
 * all; a partial one is shown while the rest is fetched (`isPlaceholderData`).
 */
export function useArtifact(runId: string, name: string | null, head: TextHead | null = null) {
  const known = head !== null && head.artifact === name ? head : null;
  return useQuery({
    queryKey: ['artifact', runId, name],
    queryFn: () => fetchText(artifactUrl(runId, name!)),
    enabled: name !== null,
    initialData: () => (known?.complete ? known.text : undefined),
    placeholderData: known && !known.complete ? known.text : undefined,
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    refetchOnWindowFocus: false,
    retry: 1,
  });
}
