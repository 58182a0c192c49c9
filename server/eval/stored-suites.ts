import { SaveCaseRequest, SuiteName, withCase, type SavedCase } from '../../lib/eval-case';
import type { Config } from '../config';
import { parseOrRefuse, RequestError } from '../errors';
import type { RunStore } from '../store/run-store';
import type { SuiteStore } from '../store/suite-store';

/**
 * Saves an evaluation case made from a run into the stored suite `name`,
 * creating the suite with the run's workspace when there is none. A run
 * imported from a bundle has another machine's workspace, which is never
 * used: its case runs on the configured workspace. A suite is over one
 * workspace: a case from a run on another is refused.
 */
export async function saveCase(
  stores: { runs: RunStore; suites: SuiteStore },
  config: Pick<Config, 'workspace'>,
  name: string,
  input: unknown,
): Promise<SavedCase> {
  parseOrRefuse(SuiteName, name, 'suite name', 'suite_invalid');
  const { runId, description, case: task } = parseOrRefuse(SaveCaseRequest, input, 'case', 'suite_invalid');
  const run = await stores.runs.getRun(runId);
  if (!run) throw new RequestError('run_not_found', `There is no run ${runId}.`);
  const workspace = run.importedFrom === null ? run.workspace : config.workspace;
  let created = false;
  const suite = await stores.suites.update(name, (current) => {
    created = current === null;
    const base = current ?? { name, workspace, tasks: [], ...(description?.trim() ? { description: description.trim() } : {}) };
    if (base.workspace !== workspace) {
      throw new RequestError('suite_invalid', `The suite ${name} runs on ${base.workspace}, and run ${runId} on ${workspace}: save the case into a suite over that workspace.`);
    }
    const added = withCase(base, task);
    if (!added.ok) throw new RequestError('suite_invalid', added.message);
    return added.suite;
  });
  const where = run.importedFrom === null ? '' : ` (run ${runId} was imported: its case runs on this planscope's workspace, ${workspace})`;
  const message = `${created ? 'Created the suite' : 'Added to the suite'} ${name}: ${suite.tasks.length} case${suite.tasks.length === 1 ? '' : 's'}${where}.`;
  return { suite: name, created, tasks: suite.tasks.length, message };
}
