import type { NextRequest } from 'next/server';
import { gate } from '@/server/http/gate';
import { signAction } from '@/server/http/audit-trail';
import { handle, readTextBody } from '@/server/http/respond';
import { bundleTooLarge, importBundle } from '@/server/run-bundles/import';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * A run bundle as the body (its JSON text); 201 with where the run is stored, and whether it had to take a new id.
 * The proxy does not run in front of this route (a bundle is larger than what Next lets it buffer): the gate is
 * run here, before a byte of the body is read, so a refused request holds no memory for it.
 */
export function POST(request: NextRequest): Promise<Response> {
  return handle(async () => {
    const admitted = await gate(request);
    if (admitted instanceof Response) return admitted;
    const { store, config, bundleChecks, audit } = getRuntime();
    const text = await readTextBody(request, config.maxBundleBytes, () => bundleTooLarge(config.maxBundleBytes));
    const outcome = await importBundle(store, bundleChecks, text, admitted.person, audit);
    await signAction('bundle_imported', { runId: outcome.id, subject: outcome.from, by: admitted.person });
    return Response.json(outcome, { status: 201, headers: { Location: `/api/runs/${encodeURIComponent(outcome.id)}` } });
  });
}
