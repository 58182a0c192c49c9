import type { Metadata } from 'next';
import { WorkersView } from '@/components/workers/workers-view';
import { seesMachineDetails } from '@/server/http/identity';
import { getRuntime } from '@/server/runtime';
import { workersView } from '@/server/workers/view';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const metadata: Metadata = { title: 'Workers' };

/** The processes that take runs and the runs waiting for one; refreshed through `GET /api/workers`. */
export default async function WorkersPage() {
  const { workers, config } = getRuntime();
  const details = await seesMachineDetails();
  const initial = await workersView(workers, config.workers, details);
  return (
    <div className="space-y-3">
      <div>
        <h1 className="text-base font-semibold">Workers</h1>
        <p className="mt-0.5 text-xs muted">
          The processes that take runs: each with the Ollama hosts and models it serves, the workspaces it reaches and the runs it is working on.
          A worker that has not sent a heartbeat for {Math.round(config.workers.lostAfterMs / 1000)} s is lost.
        </p>
      </div>
      {/* The dashboard process is a worker unless PLANSCOPE_WORKER=off says otherwise. */}
      <WorkersView initial={initial} takesRuns={config.worker ?? true} />
    </div>
  );
}
