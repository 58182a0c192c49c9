'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchText } from '../fetch-json';

/** Artifact names hold `/` (`observation/<sha>/src/a.ts`): each segment is encoded on its own. */
export function artifactUrl(runId: string, name: string): string {
  return `/api/runs/${encodeURIComponent(runId)}/artifacts/${name.split('/').map(encodeURIComponent).join('/')}`;
}

/** The raw text of one artifact. Artifacts never change once written, so a fetched one is never refetched. */
export function useArtifact(runId: string, name: string | null) {
  return useQuery({
    queryKey: ['artifact', runId, name],
    queryFn: () => fetchText(artifactUrl(runId, name!)),
    enabled: name !== null,
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    refetchOnWindowFocus: false,
    retry: 1,
  });
}
