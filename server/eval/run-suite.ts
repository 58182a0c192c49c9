import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RunErrorCode } from '../../lib/codes';
import { EvalSuite, scoreRun, type EvalItem, type EvalSettings } from '../../lib/eval';
import type { Strategy } from '../../lib/events';
import { toResult } from '../../lib/result';
import type { RunState } from '../../lib/run-state';
import { firstIssue } from '../../lib/structured';
import { OFFLINE_MODEL, type Config } from '../config';
import { isRequestError } from '../errors';
import type { RunRegistry } from '../runs/registry';
import type { EvalStore } from '../store/eval-store';
import type { SuiteStore } from '../store/suite-store';
import { PlanscopeError } from '../errors';

export class SuiteError extends PlanscopeError {
  override name = 'SuiteError';
}

export function loadSuite(file: string): { suite: EvalSuite; workspace: string } {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SuiteError(`Cannot read the suite ${file}: ${(error as Error).message}`);
  }
  const parsed = EvalSuite.safeParse(json);
  if (!parsed.success) throw new SuiteError(`The suite ${file} is invalid: ${firstIssue(parsed.error, '(root)')}`);
  return { suite: parsed.data, workspace: path.resolve(path.dirname(file), parsed.data.workspace) };
}

/** `suitePath` of a stored suite (saved from the dashboard): this prefix, then its name. */
export const STORED_SUITE_PREFIX = 'stored:';

/** The suite a plan names: a suite file, or a stored suite (`stored:<name>`), whose workspace is absolute. */
async function openSuite(runtime: SuiteRuntime, suitePath: string): Promise<{ suite: EvalSuite; workspace: string }> {
  if (!suitePath.startsWith(STORED_SUITE_PREFIX)) return loadSuite(suitePath);
  const name = suitePath.slice(STORED_SUITE_PREFIX.length);
  const suite = await runtime.suites.get(name);
  if (!suite) throw new SuiteError(`There is no stored suite ${name}.`);
  return { suite, workspace: suite.workspace };
}

/** What to run: the settings stored with the evaluation, who started it (each item's run says so), and who to tell of each item as it is stored. */
export type EvalPlan = EvalSettings & { by?: string; onItem?: (item: EvalItem) => void };

/** What an evaluation needs of the runtime: the registry to run through, the stores for its suite and items, the policy it scores by. */
export interface SuiteRuntime {
  registry: Pick<RunRegistry, 'start' | 'waitFor' | 'queues'>;
  evals: EvalStore;
  suites: Pick<SuiteStore, 'get'>;
  config: Pick<Config, 'pathPolicy'>;
}

/** The models an evaluation runs: `model`, after the offline baseline every model is compared against (unless left out). */
export function evalModels(model: string, baseline = true): string[] {
  return model === OFFLINE_MODEL || !baseline ? [model] : [OFFLINE_MODEL, model];
}

/** `startSuite` and wait for it to end. */
export async function runSuite(runtime: SuiteRuntime, plan: EvalPlan): Promise<{ id: string; items: EvalItem[] }> {
  return (await startSuite(runtime, plan)).done;
}

/**
 * Runs every task of a suite for each model, strategy and repetition, one
 * run at a time (a local model serves one request well, and wall times stay
 * comparable), through the same registry as every other run; with the run
 * queue (PostgreSQL), all at once, for the workers to share. Items are
 * stored as they finish, so an interrupted evaluation keeps what it measured.
 * Returns once the evaluation is stored, with its id; `done` settles when it ends.
 */
export async function startSuite(runtime: SuiteRuntime, plan: EvalPlan): Promise<{ id: string; done: Promise<{ id: string; items: EvalItem[] }> }> {
  const { suite, workspace } = await openSuite(runtime, plan.suitePath);
  const chosen = chosenTasks(suite, plan.tasks);
  const store = runtime.evals;
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  await store.create(id, suite.name, {
    suitePath: plan.suitePath,
    models: plan.models,
    strategies: plan.strategies,
    repeat: plan.repeat,
    ...(plan.tasks && { tasks: plan.tasks }),
  });
  return { id, done: runItems(runtime, plan, id, chosen, workspace) };
}

/**
 * The suite cut down to the tasks named, in the suite's order: a few tasks on
 * a slow model (a small one on a CPU) keep an evaluation within minutes. A
 * name the suite lacks is refused rather than measuring less than was asked.
 */
function chosenTasks(suite: EvalSuite, ids: readonly string[] | undefined): EvalSuite {
  if (ids === undefined) return suite;
  const unknown = ids.filter((id) => !suite.tasks.some((t) => t.id === id));
  if (unknown.length > 0) throw new SuiteError(`The suite ${suite.name} has no task ${unknown.join(', ')} (its tasks: ${suite.tasks.map((t) => t.id).join(', ')}).`);
  if (ids.length === 0) throw new SuiteError('No task was named to run.');
  return { ...suite, tasks: suite.tasks.filter((t) => ids.includes(t.id)) };
}

/** One run of an evaluation: a task of the suite, with a model and strategy, the `repeat`th time. */
interface ItemSpec {
  task: EvalSuite['tasks'][number];
  model: string;
  strategy: Strategy;
  repeat: number;
}

async function runItems(runtime: SuiteRuntime, plan: EvalPlan, id: string, suite: EvalSuite, workspace: string): Promise<{ id: string; items: EvalItem[] }> {
  const store = runtime.evals;
  const items: EvalItem[] = [];
  const specs: ItemSpec[] = [];
  for (const model of plan.models) {
    for (const strategy of plan.strategies) {
      for (let repeat = 1; repeat <= plan.repeat; repeat++) {
        for (const task of suite.tasks) specs.push({ task, model, strategy, repeat });
      }
    }
  }
  const record = async (spec: ItemSpec, runId: string, view: RunState) => {
    const item = itemOf(runtime, spec, runId, view);
    await store.addItem(id, items.length + 1, item);
    items.push(item);
    plan.onItem?.(item);
  };
  const start = (spec: ItemSpec) => runtime.registry.start({ task: spec.task.task, model: spec.model, strategy: spec.strategy, workspace }, { evalId: id, ...(plan.by !== undefined && { by: plan.by }) });
  try {
    if (runtime.registry.queues) {
      // Workers on many machines take them: every item is queued at once, and each is recorded as it finishes, wherever it ran.
      const started: { spec: ItemSpec; runId: string }[] = [];
      for (const spec of specs) started.push({ spec, runId: (await start(spec)).id });
      let recording = Promise.resolve();
      await Promise.all(
        started.map(({ spec, runId }) =>
          runtime.registry.waitFor(runId).then((view) => {
            recording = recording.then(() => record(spec, runId, view));
            return recording;
          }),
        ),
      );
    } else {
      for (const spec of specs) {
        const { id: runId } = await start(spec);
        await record(spec, runId, await runtime.registry.waitFor(runId));
      }
    }
    await store.finish(id, 'completed');
  } catch (error) {
    // A refused run request keeps its own code; anything else is unexpected.
    const code = isRequestError(error) ? error.code : ('internal' satisfies RunErrorCode);
    await store.finish(id, 'failed', { code, message: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  return { id, items };
}

function itemOf(runtime: SuiteRuntime, spec: ItemSpec, runId: string, view: RunState): EvalItem {
  const result = toResult(runId, view);
  return {
    ...scoreRun(spec.task, result, runtime.config.pathPolicy),
    taskId: spec.task.id,
    category: spec.task.category,
    model: result.model,
    baseline: result.baseline,
    strategy: spec.strategy,
    repeat: spec.repeat,
    runId,
    status: result.status,
    errorCode: result.error?.code ?? null,
    groundingScore: result.check?.groundingScore ?? null,
    rounds: result.attempts,
    llmCalls: result.llm.calls,
    promptTokens: result.llm.promptTokens,
    evalTokens: result.llm.evalTokens,
    wallMs: result.durationMs ?? 0,
  };
}
