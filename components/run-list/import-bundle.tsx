'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, type ChangeEvent } from 'react';
import { ImportOutcome } from '@/lib/bundle';
import { fetchJson } from '../fetch-json';

/**
 * "Import bundle": a file picker whose file goes as it is to
 * `POST /api/runs/import`; the server checks it and says where the run is
 * now, or why it refused it (with the refusal's code).
 */
export function ImportBundle() {
  const statusId = useId();
  const queryClient = useQueryClient();
  const upload = useMutation({
    mutationFn: async (file: File) =>
      fetchJson('/api/runs/import', ImportOutcome, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await file.text() }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['runs'] }),
  });

  const picked = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) upload.mutate(file);
    // The same file may be picked again after a refusal.
    event.target.value = '';
  };

  return (
    <div className="flex flex-wrap items-center gap-2 text-xs">
      <label className="btn cursor-pointer focus-within:ring-2 focus-within:ring-sky-500">
        {upload.isPending ? 'Importing…' : 'Import bundle'}
        <input
          type="file"
          accept=".json,application/json"
          className="sr-only"
          data-testid="import-bundle"
          aria-describedby={statusId}
          disabled={upload.isPending}
          onChange={picked}
        />
      </label>
      <span id={statusId} role="status" className="min-w-0 break-anywhere">
        {upload.isSuccess && (
          <span data-testid="import-outcome">
            {upload.data.message}{' '}
            <Link href={`/runs/${encodeURIComponent(upload.data.id)}`} className="underline" data-testid="open-imported">
              Open it
            </Link>
          </span>
        )}
        {upload.isError && (
          <span className="text-red-700 dark:text-red-300" data-testid="import-error">
            Not imported: {upload.error.message}
          </span>
        )}
      </span>
    </div>
  );
}
