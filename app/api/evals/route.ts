import type { EvalList, EvalStarted } from '@/lib/api';
import { RunSuiteRequest } from '@/lib/eval-case';
import { evalModels, startSuite, STORED_SUITE_PREFIX, SuiteError } from '@/server/eval/run-suite';
import { signAction } from '@/server/http/audit-trail';
import { requestIdentity } from '@/server/http/identity';
import { handle, readJsonBody } from '@/server/http/respond';
import { parseOrRefuse, RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';
import { evalSummaries } from '@/server/queries';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Evaluations, newest first, each with its overall success per model and strategy. */
export function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const url = new URL(request.url);
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 50) || 50, 1), 200);
    const body: EvalList = { evals: await evalSummaries(getRuntime().evals, limit) };
    return Response.json(body);
  });
}

/** Runs a stored suite in the background, as `npm run eval -- --suite <name>` does; 202 with the evaluation's id. */
export function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const { suite } = parseOrRefuse(RunSuiteRequest, await readJsonBody(request, 4096), 'request');
    const runtime = getRuntime();
    if (!(await runtime.suites.get(suite))) throw new RequestError('suite_not_found', `There is no stored suite ${suite}.`);
    let started;
    try {
      const by = (await requestIdentity()).person;
      started = await startSuite(runtime, { suitePath: `${STORED_SUITE_PREFIX}${suite}`, models: evalModels(runtime.config.model), strategies: ['plan-execute'], repeat: 1, by });
    } catch (error) {
      if (error instanceof SuiteError) throw new RequestError('suite_invalid', error.message);
      throw error;
    }
    // Its failure is stored with the evaluation (the page shows it); logged here as well.
    started.done.catch((error: unknown) => console.error(`planscope: evaluation ${started.id} failed`, error));
    await signAction('eval_started', { subject: suite, detail: started.id });
    const body: EvalStarted = { id: started.id };
    return Response.json(body, { status: 202, headers: { Location: `/api/evals/${started.id}` } });
  });
}
