import { bundleFileName } from '@/lib/bundle';
import { handle } from '@/server/http/respond';
import { exportRun } from '@/server/run-bundles/export';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The finished run as one bundle file, downloaded under its own name. */
export function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const { store, replays, audit, config } = getRuntime();
    const bundle = await exportRun({ runs: store, replays, audit }, config, id);
    return new Response(JSON.stringify(bundle), {
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="${bundleFileName(id)}"`,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      },
    });
  });
}
