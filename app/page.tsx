import { mayAct } from '@/lib/roles';
import { requestIdentity } from '@/server/http/identity';
import { HealthLine } from '@/components/start/health-line';
import { McpServersPanel } from '@/components/start/mcp-servers';
import { ReadPolicyPanel } from '@/components/start/read-policy';
import { SetupChecksPanel } from '@/components/start/setup-checks';
import { TaskForm } from '@/components/start/task-form';
import { RunsTable } from '@/components/run-list/runs-table';
import { describeReadPolicy } from '@/lib/policy';
import { OFFLINE_MODEL } from '@/server/config';
import { getRuntime } from '@/server/runtime';
import { startRun } from './actions';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export default async function StartPage() {
  const { config } = getRuntime();
  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(22rem,26rem)_minmax(0,1fr)]">
      <section aria-labelledby="new-run-title" className="min-w-0 space-y-3 self-start rounded-md border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
        <div>
          <h1 id="new-run-title" className="text-base font-semibold">
            New run
          </h1>
          <p className="mt-0.5 text-xs muted">
            The planner proposes which files to read, the validator checks the plan, the executor reads them through MCP,
            and the answer is checked against what was actually read.
          </p>
        </div>
        <HealthLine />
        {mayAct((await requestIdentity()).role, 'operator') ? (
          <TaskForm
            startRun={startRun}
            defaults={{
              defaultModel: config.model,
              offlineModel: OFFLINE_MODEL,
              workspace: config.workspace,
              maxRounds: config.limits.maxRounds,
              maxTaskChars: config.maxTaskChars,
            }}
          />
        ) : (
          <p className="text-sm muted" data-testid="start-not-offered">
            Starting runs needs the operator role; this token may read the runs, evaluations and workers.
          </p>
        )}
        <SetupChecksPanel />
        <McpServersPanel />
        <ReadPolicyPanel policy={describeReadPolicy(config.pathPolicy, config.secretScan)} />
      </section>
      <RunsTable limit={50} />
    </div>
  );
}
